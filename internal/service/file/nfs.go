package file

import (
	"net/http"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// NFS shares: a premium (FileStorage) account may create a share with
// x-ms-enabled-protocols: NFS instead of SMB, with a root squash setting
// (x-ms-root-squash: NoRootSquash, RootSquash or AllSquash, NoRootSquash
// when not given) that Set Share Properties may change. Accounts are
// premium when --premiumAccounts names them; a standard account's share
// speaks SMB only, and root squash applies to NFS shares only (400
// InvalidHeaderValue otherwise).

const (
	protocolSMB = "SMB"
	protocolNFS = "NFS"
)

// rootSquashes are the root squash settings, by their lower-case names.
var rootSquashes = map[string]string{
	"norootsquash": "NoRootSquash", "rootsquash": "RootSquash", "allsquash": "AllSquash",
}

// parseShareProtocols reads the protocol and root squash of Create Share.
func (s *Service) parseShareProtocols(r *http.Request, account string) (protocols, squash string, err error) {
	raw := strings.TrimSpace(r.Header.Get("X-Ms-Enabled-Protocols"))
	switch {
	case raw == "" || strings.EqualFold(raw, protocolSMB):
		protocols = protocolSMB
	case strings.EqualFold(raw, protocolNFS) && s.premium[account]:
		protocols = protocolNFS
	case strings.EqualFold(raw, protocolNFS):
		return "", "", azerr.Newf(azerr.InvalidHeaderValue, "NFS shares need a premium account.").
			With("HeaderName", "x-ms-enabled-protocols").With("HeaderValue", raw)
	default:
		return "", "", azerr.InvalidHeader("x-ms-enabled-protocols", raw)
	}
	if squash, err = parseRootSquash(r.Header, protocols); err != nil {
		return "", "", err
	}
	if protocols == protocolNFS && squash == "" {
		squash = "NoRootSquash"
	}
	return protocols, squash, nil
}

// parseRootSquash reads x-ms-root-squash ("" when absent) for a share
// speaking protocols.
func parseRootSquash(h http.Header, protocols string) (string, error) {
	raw := strings.TrimSpace(h.Get("X-Ms-Root-Squash"))
	if raw == "" {
		return "", nil
	}
	squash, ok := rootSquashes[strings.ToLower(raw)]
	if !ok || protocols != protocolNFS {
		return "", azerr.InvalidHeader("x-ms-root-squash", raw)
	}
	return squash, nil
}

// protocolsOf is the share's protocol (records written before NFS shares
// existed are SMB ones).
func protocolsOf(sh *shareRecord) string {
	if sh.Protocols == "" {
		return protocolSMB
	}
	return sh.Protocols
}

// setProtocolHeaders writes x-ms-enabled-protocols and, for an NFS share,
// x-ms-root-squash.
func setProtocolHeaders(h http.Header, sh *shareRecord) {
	h.Set("X-Ms-Enabled-Protocols", protocolsOf(sh))
	if sh.RootSquash != "" {
		h.Set("X-Ms-Root-Squash", sh.RootSquash)
	}
}

// writeProtocolElements writes EnabledProtocols and RootSquash of a listed
// share.
func writeProtocolElements(x *xmlWriter, sh *shareRecord) {
	x.Elem("EnabledProtocols", protocolsOf(sh))
	if sh.RootSquash != "" {
		x.Elem("RootSquash", sh.RootSquash)
	}
}

// parseSquashChange reads the x-ms-root-squash of Set Share Properties,
// which only an NFS share takes (its protocol never changes, so a read
// before the update decides).
func (s *Service) parseSquashChange(r *http.Request, t *target) (string, error) {
	if r.Header.Get("X-Ms-Root-Squash") == "" {
		return "", nil
	}
	var sh *shareRecord
	err := s.store.View(r.Context(), func(tx store.Tx) error {
		var err error
		sh, err = shareFor(tx, t)
		return err
	})
	if err != nil {
		return "", err
	}
	return parseRootSquash(r.Header, protocolsOf(sh))
}

// nfsOnly refuses an operation of NFS shares only (what: its subject, as
// "Hard links") on a share that speaks SMB, as the service does: 400
// InvalidHeaderValue naming the operation's own header. parent is the
// directory the operation writes in; the nodes of an NFS share, its root
// first, have NFS properties.
func nfsOnly(parent *node, what, header string) error {
	if parent.NFS != nil {
		return nil
	}
	return azerr.Newf(azerr.InvalidHeaderValue, "%s are for NFS shares only.", what).With("HeaderName", header)
}
