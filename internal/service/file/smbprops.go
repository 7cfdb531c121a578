package file

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// attributes are NTFS file attributes, with their Windows bit values.
type attributes uint32

// The attributes Azure Files accepts.
const (
	attrReadOnly          attributes = 0x1
	attrHidden            attributes = 0x2
	attrSystem            attributes = 0x4
	attrDirectory         attributes = 0x10
	attrArchive           attributes = 0x20
	attrTemporary         attributes = 0x100
	attrOffline           attributes = 0x1000
	attrNotContentIndexed attributes = 0x2000
	attrNoScrubData       attributes = 0x20000
)

var attributeNames = []struct {
	bit  attributes
	name string
}{
	{attrReadOnly, "ReadOnly"}, {attrHidden, "Hidden"}, {attrSystem, "System"},
	{attrDirectory, "Directory"}, {attrArchive, "Archive"}, {attrTemporary, "Temporary"},
	{attrOffline, "Offline"}, {attrNotContentIndexed, "NotContentIndexed"}, {attrNoScrubData, "NoScrubData"},
}

// String renders attributes as the service does: names joined by " | ".
func (a attributes) String() string {
	var names []string
	for _, an := range attributeNames {
		if a&an.bit != 0 {
			names = append(names, an.name)
		}
	}
	if len(names) == 0 {
		return "None"
	}
	return strings.Join(names, " | ")
}

// parseAttributes reads x-ms-file-attributes: "None" or names separated by
// '|'. A file with no attribute is an Archive file and a directory always
// carries Directory, as on the service; Directory on a file is refused.
func parseAttributes(raw string, dir bool) (attributes, error) {
	bad := azerr.InvalidHeader("x-ms-file-attributes", raw)
	var a attributes
	none := false
	for _, part := range strings.Split(raw, "|") {
		part = strings.TrimSpace(part)
		if strings.EqualFold(part, "None") {
			none = true
			continue
		}
		found := false
		for _, an := range attributeNames {
			if strings.EqualFold(part, an.name) {
				a |= an.bit
				found = true
			}
		}
		if !found {
			return 0, bad
		}
	}
	if none && a&^attrDirectory != 0 {
		return 0, bad
	}
	if dir {
		return a | attrDirectory, nil
	}
	if a&attrDirectory != 0 {
		return 0, bad
	}
	if a == 0 {
		a = attrArchive
	}
	return a, nil
}

// timeLayout is how the service writes SMB times: seven fraction digits.
const timeLayout = "2006-01-02T15:04:05.0000000Z"

func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

// timeSpec is a requested SMB time: absent, "now", "preserve" or a value.
type timeSpec struct {
	mode byte // 0 absent, 'n' now, 'p' preserve, 'v' value
	at   time.Time
}

func parseTimeSpec(h http.Header, name string) (timeSpec, error) {
	raw := strings.TrimSpace(h.Get(name))
	switch strings.ToLower(raw) {
	case "":
		return timeSpec{}, nil
	case "now":
		return timeSpec{mode: 'n'}, nil
	case "preserve":
		return timeSpec{mode: 'p'}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, raw)
	if err != nil {
		return timeSpec{}, azerr.InvalidHeader(name, raw)
	}
	return timeSpec{mode: 'v', at: t.UTC()}, nil
}

// resolve applies the spec to the current value: absent means def ('n' on
// create, 'p' on set).
func (s timeSpec) resolve(cur, now time.Time, def byte) time.Time {
	mode := s.mode
	if mode == 0 {
		mode = def
	}
	switch mode {
	case 'v':
		return s.at
	case 'p':
		if !cur.IsZero() {
			return cur
		}
	}
	return now
}

// smbRequest is the SMB properties a create or set request asks for.
type smbRequest struct {
	attrs            *attributes // nil: default on create, preserve on set
	created, written timeSpec
	changed          timeSpec
	perm             permRequest
	// nfs are the NFS headers, which create and set apply to nodes of NFS
	// shares (nfsprops.go).
	nfs nfsRequest
	// restore is x-ms-file-property-semantics: Restore, a create that puts
	// back a file as it was: it gets no Archive attribute it was not given
	// (New, the default, marks a new file for backup; the SDK's recorded
	// TestFileCreateFilePropertySemantics).
	restore bool
}

// parseSMBRequest reads the x-ms-file-* SMB headers of a create or set.
func parseSMBRequest(h http.Header, dir bool) (smbRequest, error) {
	var req smbRequest
	if raw := strings.TrimSpace(h.Get("X-Ms-File-Attributes")); raw != "" && !strings.EqualFold(raw, "preserve") {
		a, err := parseAttributes(raw, dir)
		if err != nil {
			return req, err
		}
		req.attrs = &a
	}
	var err error
	if req.created, err = parseTimeSpec(h, "x-ms-file-creation-time"); err != nil {
		return req, err
	}
	if req.written, err = parseTimeSpec(h, "x-ms-file-last-write-time"); err != nil {
		return req, err
	}
	if req.changed, err = parseTimeSpec(h, "x-ms-file-change-time"); err != nil {
		return req, err
	}
	if req.perm, err = parsePermRequest(h); err != nil {
		return req, err
	}
	switch raw := h.Get("X-Ms-File-Property-Semantics"); {
	case raw == "" || strings.EqualFold(raw, "New"):
	case strings.EqualFold(raw, "Restore"):
		req.restore = true
	default:
		return req, azerr.InvalidHeader("x-ms-file-property-semantics", raw)
	}
	req.nfs, err = parseNFSRequest(h)
	return req, err
}

// apply sets the requested times and attributes on p. A create defaults
// every time to now and the attributes to the kind's default; a set keeps
// what is not asked for, except the change time, which any set moves to
// now unless told otherwise (the service's ctime rule).
func (req smbRequest) apply(p *smbProps, dir, creating bool, now time.Time) {
	def := byte('p')
	if creating {
		def = 'n'
	}
	switch {
	case req.attrs != nil:
		p.Attrs = *req.attrs
	case creating && dir:
		p.Attrs = attrDirectory
	case creating && req.restore:
		p.Attrs = 0
	case creating:
		p.Attrs = attrArchive
	}
	p.Created = req.created.resolve(p.Created, now, def)
	p.Written = req.written.resolve(p.Written, now, def)
	p.Changed = req.changed.resolve(p.Changed, now, 'n')
}

// showsSMB reports whether n shows SMB attributes and a permission key: a
// node of an NFS share has none to answer or list (Azure/azure-sdk-assets
// go/sdk/storage/azfile/testdata/recordings/Test/TestCreateSymbolicLinkNFS.json;
// azure-sdk-for-python test_nfs.py).
func (n *node) showsSMB() bool { return n.NFS == nil }

// setSMBHeaders writes the SMB properties and ids of n, and the NFS
// properties the answer carries.
func setSMBHeaders(h http.Header, n *node, nfs nfsHeaders) {
	if n.showsSMB() {
		h.Set("X-Ms-File-Attributes", n.SMB.Attrs.String())
		h.Set("X-Ms-File-Permission-Key", n.SMB.PermKey)
	}
	h.Set("X-Ms-File-Creation-Time", formatTime(n.SMB.Created))
	h.Set("X-Ms-File-Last-Write-Time", formatTime(n.SMB.Written))
	h.Set("X-Ms-File-Change-Time", formatTime(n.SMB.Changed))
	h.Set("X-Ms-File-Id", strconv.FormatUint(n.ID, 10))
	h.Set("X-Ms-File-Parent-Id", strconv.FormatUint(n.ParentID, 10))
	setNFSHeaders(h, n, nfs)
}
