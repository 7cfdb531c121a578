package smbstate

import (
	"testing"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// TestShareModeTable checks, for an SMB client that opened the file for
// read/write with each share mode, which FileREST operations fail: the
// per-share-mode table of the Azure reference page "Managing file locks"
// (learn.microsoft.com/rest/api/storageservices/managing-file-locks).
func TestShareModeTable(t *testing.T) {
	fileOps := []Op{CreateFile, GetFile, SetFileProperties, SetFileMetadata, DeleteFile, PutRange, ListRanges, LeaseFile}
	rows := []struct {
		mode  string
		share ShareMode
		fail  []Op
	}{
		{"None", ShareNone, fileOps},
		{"Shared Read", ShareRead, []Op{CreateFile, SetFileProperties, SetFileMetadata, DeleteFile, PutRange, LeaseFile}},
		{"Shared Write", ShareWrite, []Op{CreateFile, GetFile, DeleteFile, ListRanges, LeaseFile}},
		{"Shared Delete", ShareDelete, []Op{CreateFile, GetFile, SetFileProperties, SetFileMetadata, DeleteFile, PutRange, ListRanges, LeaseFile}},
		{"Shared Read/Write", ShareRead | ShareWrite, []Op{CreateFile, DeleteFile, LeaseFile}},
		{"Shared Read/Delete", ShareRead | ShareDelete, []Op{CreateFile, SetFileProperties, SetFileMetadata, DeleteFile, PutRange, LeaseFile}},
		{"Shared Write/Delete", ShareWrite | ShareDelete, []Op{GetFile, DeleteFile, ListRanges, LeaseFile}},
		{"Shared Read/Write/Delete", ShareAll, []Op{DeleteFile, LeaseFile}},
	}
	for _, row := range rows {
		open := Open{HandleID: 1, Access: Read | Write, Share: row.share}
		failing := map[Op]bool{}
		for _, op := range row.fail {
			failing[op] = true
		}
		for _, op := range fileOps {
			err := Check(op, []Open{open})
			if failing[op] {
				if !azerr.Is(err, azerr.SharingViolation) {
					t.Errorf("%s: op %d: got %v, want SharingViolation", row.mode, op, err)
				}
			} else if err != nil {
				t.Errorf("%s: op %d: got %v, want success", row.mode, op, err)
			}
		}
	}
}

// TestLeaseAgainstOpenAccess: Lease File shares only reads, so it fails
// while any handle holds write or delete access, whatever that handle's
// share mode, and succeeds beside read-only and attribute-only handles.
func TestLeaseAgainstOpenAccess(t *testing.T) {
	cases := []struct {
		access Access
		fail   bool
	}{
		{0, false},
		{Read, false},
		{Write, true},
		{Delete, true},
		{Read | Write, true},
	}
	for _, c := range cases {
		err := Check(LeaseFile, []Open{{Access: c.access, Share: ShareAll}})
		if (err != nil) != c.fail {
			t.Errorf("access %b: got %v, fail=%v wanted", c.access, err, c.fail)
		}
	}
}

func TestAttributeOnlyOpensOnlyBlockDeletes(t *testing.T) {
	open := Open{Access: 0, Share: ShareNone}
	for _, op := range []Op{GetFile, PutRange, CreateFile, LeaseFile, RenameSource} {
		if err := Check(op, []Open{open}); err != nil {
			t.Errorf("op %d blocked by an attribute-only open: %v", op, err)
		}
	}
	for _, op := range []Op{DeleteFile, DeleteDirectory, ReplaceTarget} {
		if err := Check(op, []Open{open}); err == nil {
			t.Errorf("op %d allowed while a handle is open", op)
		}
	}
}

func TestRights(t *testing.T) {
	got := Open{Access: Read | Delete}.Rights()
	if len(got) != 2 || got[0] != "Read" || got[1] != "Delete" {
		t.Fatalf("Rights = %v", got)
	}
}
