// Package smbstate is the SMB side of a file as the REST service must honour
// it: the handles SMB clients hold open (each with the access it was granted
// and the share mode it allows others), and the rule that decides which
// FileREST operations those opens refuse with 409 SharingViolation.
//
// Azure treats every FileREST operation as if it were an SMB open with a
// fixed access and share mode ("Managing file locks"): Get File is a read,
// Put Range a write, Create File a write and a delete, Lease File a write and
// a delete that shares only reads. An operation conflicts with an existing
// open when it needs an access the open does not share, or when the open
// holds an access the operation does not share. REST Delete File and Delete
// Directory are atomic and never leave a file pending deletion, so they fail
// while any handle is open, whatever its share mode.
//
// The package is pure; the file service stores opens inside its file and
// directory records. A later SMB endpoint will create and close them; until
// then tests write them through the file service's test hook.
package smbstate

import (
	"time"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// Access is what an open may do with the file.
type Access uint8

// Accesses. An open with none of them (attributes only) takes no part in
// sharing checks, as on NTFS.
const (
	Read Access = 1 << iota
	Write
	Delete
)

// ShareMode is what an open lets later opens do.
type ShareMode uint8

// Share modes; ShareNone (zero) declines all sharing.
const (
	ShareRead ShareMode = 1 << iota
	ShareWrite
	ShareDelete

	ShareNone ShareMode = 0
	ShareAll            = ShareRead | ShareWrite | ShareDelete
)

// Open is one open SMB handle on a file or directory.
type Open struct {
	HandleID  uint64
	SessionID uint64
	// Node is the id of the node whose process holds the open (package
	// liveness); an open of a node that stopped renewing its liveness is
	// gone. 0: not tied to a node (never expires).
	Node              uint64
	ClientIP          string // address:port of the client
	ClientName        string
	OpenTime          time.Time
	LastReconnectTime time.Time // zero when the client never reconnected
	Access            Access
	Share             ShareMode
}

// Rights lists the access rights of an open as List Handles reports them.
func (o Open) Rights() []string {
	var out []string
	for _, r := range []struct {
		bit  Access
		name string
	}{{Read, "Read"}, {Write, "Write"}, {Delete, "Delete"}} {
		if o.Access&r.bit != 0 {
			out = append(out, r.name)
		}
	}
	return out
}

// Op is a FileREST operation that an SMB open can refuse.
type Op int

// Operations with their SMB equivalents (see need). Operations absent
// here (Get File Properties, Get File Metadata, List Directories and Files)
// need no access and succeed whatever SMB clients hold open.
const (
	CreateFile Op = iota + 1
	GetFile
	SetFileProperties
	SetFileMetadata
	DeleteFile
	PutRange
	ListRanges
	LeaseFile
	CopySource      // Copy File reading its source: a read
	RenameSource    // Rename moving a file or directory: a delete of the old name
	ReplaceTarget   // Rename or Copy overwriting an existing file: a delete
	DeleteDirectory // Delete Directory
)

// equivalent is the SMB open a FileREST operation behaves as.
type equivalent struct {
	access Access
	share  ShareMode
	// exclusive operations fail while any handle is open.
	exclusive bool
}

var need = map[Op]equivalent{
	CreateFile:        {access: Write | Delete, share: ShareAll},
	GetFile:           {access: Read, share: ShareAll},
	SetFileProperties: {access: Write, share: ShareAll},
	SetFileMetadata:   {access: Write, share: ShareAll},
	DeleteFile:        {access: Delete, share: ShareAll, exclusive: true},
	PutRange:          {access: Write, share: ShareAll},
	ListRanges:        {access: Read, share: ShareAll},
	LeaseFile:         {access: Write | Delete, share: ShareRead},
	CopySource:        {access: Read, share: ShareAll},
	RenameSource:      {access: Delete, share: ShareAll},
	ReplaceTarget:     {access: Delete, share: ShareAll, exclusive: true},
	DeleteDirectory:   {access: Delete, share: ShareAll, exclusive: true},
}

// Conflicts reports whether op cannot proceed while open is held.
func Conflicts(op Op, open Open) bool {
	eq, ok := need[op]
	if !ok {
		return false
	}
	if eq.exclusive {
		return true
	}
	if open.Access&(Read|Write|Delete) == 0 {
		return false
	}
	return !shares(open.Share, eq.access) || !shares(eq.share, open.Access)
}

// shares reports whether share mode s allows every access in a.
func shares(s ShareMode, a Access) bool {
	return (a&Read == 0 || s&ShareRead != 0) &&
		(a&Write == 0 || s&ShareWrite != 0) &&
		(a&Delete == 0 || s&ShareDelete != 0)
}

// Check returns 409 SharingViolation when any of opens refuses op.
func Check(op Op, opens []Open) error {
	for _, o := range opens {
		if Conflicts(op, o) {
			return azerr.New(azerr.SharingViolation)
		}
	}
	return nil
}

// OpenConflicts reports whether a new SMB open asking for access and
// allowing share cannot coexist with existing (MS-FSA 2.1.5.1.2.2): either
// side needs an access the other does not share. Opens without data access
// (attributes only) never conflict.
func OpenConflicts(existing []Open, access Access, share ShareMode) bool {
	if access&(Read|Write|Delete) == 0 {
		return false
	}
	for _, o := range existing {
		if o.Access&(Read|Write|Delete) == 0 {
			continue
		}
		if !shares(o.Share, access) || !shares(share, o.Access) {
			return true
		}
	}
	return false
}

// CheckReadOnly returns ReadOnlyAttribute (409, as the error-code table
// has it) when op writes a file that carries the ReadOnly attribute (set
// over SMB or REST): Create File over it, Set File Metadata and Put Range.
// Set File Properties stays allowed, as it is how the attribute is cleared.
func CheckReadOnly(op Op, readOnly bool) error {
	switch op {
	case CreateFile, SetFileMetadata, PutRange:
		if readOnly {
			return azerr.New(azerr.ReadOnlyAttribute)
		}
	}
	return nil
}
