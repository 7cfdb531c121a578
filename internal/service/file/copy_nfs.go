package file

import (
	"net/http"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// A copy into an NFS share gives the new file NFS properties: its owner
// and group, and its mode, each from the source (x-ms-file-owner-copy-mode,
// x-ms-file-mode-copy-mode: source) or from the request's x-ms-owner,
// x-ms-group and x-ms-mode (override, and when neither is said), else the
// defaults of a new file (the SDK's recorded TestFileStartCopyModeCopyModeNfs
// overrides them and reads them back).

// nfsCopyModes are the two copy modes; true takes the source's.
type nfsCopyModes struct {
	ownerFromSource, modeFromSource bool
}

func parseNFSCopyModes(h http.Header) (nfsCopyModes, error) {
	var m nfsCopyModes
	for _, mode := range []struct {
		name string
		dst  *bool
	}{{"x-ms-file-owner-copy-mode", &m.ownerFromSource}, {"x-ms-file-mode-copy-mode", &m.modeFromSource}} {
		switch raw := h.Get(mode.name); {
		case raw == "" || strings.EqualFold(raw, "override"):
		case strings.EqualFold(raw, "source"):
			*mode.dst = true
		default:
			return m, azerr.InvalidHeader(mode.name, raw)
		}
	}
	return m, nil
}

// applyNFS gives the copy n its NFS properties when it lands on an NFS
// share (its parent has them); NFS headers elsewhere are refused.
func (req copyRequest) applyNFS(n, srcNode, parent *node) error {
	if parent.NFS == nil {
		return req.smb.nfs.refuseOnSMB()
	}
	p := &nfsProps{Owner: "0", Group: "0", Mode: defaultFileMode}
	if srcNode != nil && srcNode.NFS != nil {
		if req.nfsModes.ownerFromSource {
			p.Owner, p.Group = srcNode.NFS.Owner, srcNode.NFS.Group
		}
		if req.nfsModes.modeFromSource {
			p.Mode = srcNode.NFS.Mode
		}
	}
	q := req.smb.nfs
	if req.nfsModes.ownerFromSource {
		q.owner, q.group = nil, nil
	}
	if req.nfsModes.modeFromSource {
		q.mode = nil
	}
	q.apply(p)
	n.NFS = p
	return nil
}
