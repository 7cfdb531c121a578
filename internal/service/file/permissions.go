package file

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"github.com/lazuli-storage/lazuli/internal/rule/sddl"
	"net/http"
	"strconv"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/base/record"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// File permissions (security descriptors) are stored once per share and
// referenced by key from files and directories, as Azure does: the key is
// derived from the descriptor, so the same permission always gets the same
// key and is stored once.

// maxHeaderPermission is the largest permission x-ms-file-permission may
// carry; larger ones go through Create Permission and a key.
const maxHeaderPermission = 8 << 10

// Permission formats.
const (
	formatSDDL   = "sddl"
	formatBinary = "binary"
)

// defaultPermission is the root directory's permission on a new share:
// full control for SYSTEM and Administrators, modify for authenticated
// users, read for users, all inherited by children.
const defaultPermission = "O:SYG:SYD:(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)(A;OICI;0x1301bf;;;AU)(A;OICI;0x1200a9;;;BU)"

// permRequest is the permission a create or set asks for.
type permRequest struct {
	mode   byte // 0 absent, 'i' inherit, 'p' preserve, 'v' value, 'k' key
	value  string
	format string
	key    string
}

func parsePermRequest(h http.Header) (permRequest, error) {
	perm, key := h.Get("X-Ms-File-Permission"), strings.TrimSpace(h.Get("X-Ms-File-Permission-Key"))
	format, err := parsePermFormat(h.Get("X-Ms-File-Permission-Format"))
	if err != nil {
		return permRequest{}, err
	}
	if perm != "" && key != "" {
		return permRequest{}, azerr.Newf(azerr.InvalidHeaderValue,
			"Only one of x-ms-file-permission and x-ms-file-permission-key may be specified.").
			With("HeaderName", "x-ms-file-permission-key").With("HeaderValue", key)
	}
	switch {
	case key != "":
		return permRequest{mode: 'k', key: key}, nil
	case strings.EqualFold(perm, "inherit"):
		return permRequest{mode: 'i'}, nil
	case strings.EqualFold(perm, "preserve"):
		return permRequest{mode: 'p'}, nil
	case perm == "":
		return permRequest{}, nil
	}
	if len(perm) > maxHeaderPermission {
		return permRequest{}, azerr.Newf(azerr.InvalidHeaderValue,
			"x-ms-file-permission is larger than 8 KiB: create the permission with Create Permission and pass its key.").
			With("HeaderName", "x-ms-file-permission")
	}
	if err := validPermission(perm, format); err != nil {
		return permRequest{}, err
	}
	return permRequest{mode: 'v', value: perm, format: format}, nil
}

func parsePermFormat(raw string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(raw)) {
	case "", formatSDDL:
		return formatSDDL, nil
	case formatBinary:
		return formatBinary, nil
	}
	return "", azerr.InvalidHeader("x-ms-file-permission-format", raw)
}

// resolve returns the permission key a node gets: the parent's when
// inheriting (the default on create), the current one when preserving
// (the default on set), or the key of a given or new permission.
func (req permRequest) resolve(tx store.Tx, account, share, current, parentKey string, creating bool) (string, error) {
	mode := req.mode
	if mode == 0 {
		mode = 'p'
		if creating {
			mode = 'i'
		}
	}
	switch mode {
	case 'i':
		return parentKey, nil
	case 'p':
		return current, nil
	case 'k':
		if _, err := tx.Get(permKey(account, share, req.key)); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return "", azerr.New(azerr.FileInvalidPermissionKey)
			}
			return "", err
		}
		return req.key, nil
	}
	return storePermission(tx, account, share, req.value, req.format)
}

func permKey(account, share, key string) []byte {
	return store.NewKey(store.SpaceFileIndex).Str(account).Str(share).Str("").Str("p").Str(key)
}

// permissionKeyOf derives the key of a permission: two decimal numbers
// joined by '*', the shape of the service's keys.
func permissionKeyOf(value, format string) string {
	sum := sha256.Sum256([]byte(format + "\x00" + value))
	a := binary.BigEndian.Uint64(sum[:8])
	b := binary.BigEndian.Uint64(sum[8:16])
	return strconv.FormatUint(a, 10) + "*" + strconv.FormatUint(b, 10)
}

// storePermission stores a validated permission and returns its key.
func storePermission(tx store.Tx, account, share, value, format string) (string, error) {
	key := permissionKeyOf(value, format)
	k := permKey(account, share, key)
	if _, err := tx.Get(k); err == nil {
		return key, nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return "", err
	}
	e := record.Encoder{}
	e.Byte(recordFormat)
	e.Str(format)
	e.Str(value)
	return key, tx.Put(k, e.Bytes())
}

// loadPermission reads a stored permission; found is false when the key is
// unknown.
func loadPermission(tx store.Tx, account, share, key string) (value, format string, found bool, err error) {
	v, err := tx.Get(permKey(account, share, key))
	if errors.Is(err, store.ErrNotFound) {
		return "", "", false, nil
	}
	if err != nil {
		return "", "", false, err
	}
	if len(v) == 0 || v[0] != recordFormat {
		return "", "", false, record.ErrMalformed
	}
	d := record.NewDecoder(v[1:])
	format, value = d.Str(), d.Str()
	return value, format, d.Err() == nil, d.Err()
}

// validPermission checks a permission's form: a binary one must be a
// base64 self-relative security descriptor, an SDDL one well-formed SDDL.
func validPermission(value, format string) error {
	invalid := azerr.New(azerr.FileInvalidPermission)
	if format == formatBinary {
		raw, err := base64.StdEncoding.DecodeString(value)
		if err != nil {
			return invalid
		}
		if _, err := sddl.FromBinary(raw); err != nil {
			return invalid
		}
		return nil
	}
	if !validSDDL(value) {
		return invalid
	}
	return nil
}

// validSDDL checks that an SDDL permission parses and has the parts the
// service requires: owner, group and DACL.
func validSDDL(s string) bool {
	d, err := sddl.Parse(s)
	return err == nil && d.Owner != nil && d.Group != nil && d.DACL.Present
}

// convertPermission renders a stored permission in the other format: SDDL
// to a base64 self-relative security descriptor, or back.
func convertPermission(value, from, to string) (string, error) {
	if from == to {
		return value, nil
	}
	var d *sddl.Descriptor
	var err error
	if from == formatBinary {
		raw, decodeErr := base64.StdEncoding.DecodeString(value)
		if decodeErr != nil {
			return "", decodeErr
		}
		d, err = sddl.FromBinary(raw)
	} else {
		d, err = sddl.Parse(value)
	}
	if err != nil {
		return "", err
	}
	if to == formatBinary {
		return base64.StdEncoding.EncodeToString(d.Binary()), nil
	}
	return d.String(), nil
}
