package file

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/base/record"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/sddl"
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
	mode byte             // 0 absent, 'i' inherit, 'p' preserve, 'v' value, 'k' key
	desc *sddl.Descriptor // the value, parsed once when the request is read
	key  string
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
	d, err := parsePermission(perm, format)
	if err != nil {
		return permRequest{}, err
	}
	return permRequest{mode: 'v', desc: d}, nil
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

// onCreate returns the permission key a new file or directory gets: its
// parent's when inheriting (the default), or, for a permission given by
// value or key, that descriptor with the parent's inheritable ACEs added,
// as a Windows file system creates an object with automatic inheritance.
// So the new entry's key is not the given one: the recorded
// TestFileCreateWithPermissionKey creates a file with a key from Create
// Permission and gets another back, and TestDirSetPropertiesFilePermissionFormat
// gets one key from Create Directory and another from Set Directory
// Properties for the same SDDL. The one exception is the key an
// inheriting entry is answered, its parent's: an entry created with it
// inherits too and keeps that key, as Azure answers a directory created
// with the key a sibling inherited (azure-sdk-for-js storage-file-share
// recordings/node/directoryclient/
// recording_create_with_all_parameters_configured_setting_filepermissionkey.json).
func (req permRequest) onCreate(tx store.Tx, account, share, parentKey string, dir bool) (string, error) {
	switch {
	case req.mode == 0 || req.mode == 'i' || req.mode == 'k' && req.key == parentKey:
		return parentKey, nil
	case req.mode == 'p':
		return "", nil
	}
	explicit, err := req.descriptor(tx, account, share)
	if err != nil {
		return "", err
	}
	var parent *sddl.Descriptor
	if parentKey != "" {
		if parent, _, err = loadDescriptor(tx, account, share, parentKey); err != nil {
			return "", err
		}
	}
	return storeDescriptor(tx, account, share, sddl.Inherit(explicit, parent, dir))
}

// onSet returns the permission key an existing entry gets from Set
// Properties or Rename: its current one when preserving (the default),
// its parent's when inheriting, or the given permission as it is.
func (req permRequest) onSet(tx store.Tx, account, share, current, parentKey string) (string, error) {
	switch req.mode {
	case 0, 'p':
		return current, nil
	case 'i':
		return parentKey, nil
	case 'k':
		// The key is kept as it is: only its existence matters here.
		if _, err := tx.Get(permKey(account, share, req.key)); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return "", azerr.New(azerr.FileInvalidPermissionKey)
			}
			return "", err
		}
		return req.key, nil
	}
	return storeDescriptor(tx, account, share, req.desc)
}

// descriptor is the security descriptor a request gives by value or key.
func (req permRequest) descriptor(tx store.Tx, account, share string) (*sddl.Descriptor, error) {
	if req.mode == 'v' {
		return req.desc, nil
	}
	d, found, err := loadDescriptor(tx, account, share, req.key)
	if err == nil && !found {
		err = azerr.New(azerr.FileInvalidPermissionKey)
	}
	return d, err
}

func permKey(account, share, key string) []byte {
	return store.NewKey(store.SpaceFileIndex).Str(account).Str(share).Str("").Str("p").Str(key)
}

// permissionKeyOf derives the key of a stored descriptor from its bytes:
// two decimal numbers joined by '*', the shape of the service's keys.
func permissionKeyOf(stored []byte) string {
	sum := sha256.Sum256(stored)
	a := binary.BigEndian.Uint64(sum[:8])
	b := binary.BigEndian.Uint64(sum[8:16])
	return strconv.FormatUint(a, 10) + "*" + strconv.FormatUint(b, 10)
}

// storePermission stores a validated permission and returns its key.
func storePermission(tx store.Tx, account, share, value, format string) (string, error) {
	d, err := descriptorOf(value, format)
	if err != nil {
		return "", err
	}
	return storeDescriptor(tx, account, share, d)
}

// storeDescriptor stores d as the service keeps a descriptor and returns
// its key. A descriptor without a SACL is kept with a NULL one: Get
// Permission on Azure answers "...S:NO_ACCESS_CONTROL" for a permission
// created without an S: part (the recorded TestSharePutAndGetPermission).
// The key comes from the self-relative bytes, so the same descriptor gets
// the same key however its SDDL was spelled or whichever format it came in.
func storeDescriptor(tx store.Tx, account, share string, d *sddl.Descriptor) (string, error) {
	stored := asStored(d).Binary()
	key := permissionKeyOf(stored)
	k := permKey(account, share, key)
	if _, err := tx.Get(k); err == nil {
		return key, nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return "", err
	}
	e := record.Encoder{}
	e.Byte(recordFormat)
	e.Str(formatBinary)
	e.Str(base64.StdEncoding.EncodeToString(stored))
	return key, tx.Put(k, e.Bytes())
}

// asStored is d as the service keeps it: with a NULL SACL when it has none.
func asStored(d *sddl.Descriptor) *sddl.Descriptor {
	kept := *d
	if !kept.SACL.Present {
		kept.SACL = sddl.ACL{Present: true, Null: true}
	}
	return &kept
}

// loadDescriptor reads a stored permission; found is false when the key
// is unknown. Permissions stored before descriptors were kept in binary
// may be SDDL text under their old key; they read as a permission stored
// now does, NULL SACL included.
func loadDescriptor(tx store.Tx, account, share, key string) (d *sddl.Descriptor, found bool, err error) {
	v, err := tx.Get(permKey(account, share, key))
	if errors.Is(err, store.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if len(v) == 0 || v[0] != recordFormat {
		return nil, false, record.ErrMalformed
	}
	dec := record.NewDecoder(v[1:])
	format, value := dec.Str(), dec.Str()
	if err := dec.Err(); err != nil {
		return nil, false, err
	}
	if d, err = descriptorOf(value, format); err != nil {
		return nil, false, err
	}
	return asStored(d), true, nil
}

// parsePermission parses a permission a request gives, refusing with
// FileInvalidPermission one that is neither a base64 self-relative
// security descriptor (binary) nor SDDL with the parts the service
// requires: owner, group and DACL.
func parsePermission(value, format string) (*sddl.Descriptor, error) {
	d, err := descriptorOf(value, format)
	if err != nil || format == formatSDDL && (d.Owner == nil || d.Group == nil || !d.DACL.Present) {
		return nil, azerr.New(azerr.FileInvalidPermission)
	}
	return d, nil
}

// descriptorOf parses a permission in its format: a base64 self-relative
// security descriptor, or SDDL.
func descriptorOf(value, format string) (*sddl.Descriptor, error) {
	if format == formatBinary {
		raw, err := base64.StdEncoding.DecodeString(value)
		if err != nil {
			return nil, err
		}
		return sddl.FromBinary(raw)
	}
	return sddl.Parse(value)
}

// renderPermission writes a descriptor in the format asked for: SDDL in
// the service's canonical spelling (aliases for well-known SIDs, rights in
// bit order), or base64 of its self-relative form.
func renderPermission(d *sddl.Descriptor, format string) string {
	if format == formatBinary {
		return base64.StdEncoding.EncodeToString(d.Binary())
	}
	return d.String()
}
