// Package file is Lazuli's File service over REST: shares and their
// snapshots, directories, files, leases, SMB handles as REST sees them, and
// the service properties, answered as Azure Files answers them (the Azure
// reference "File service REST API", learn.microsoft.com/rest/api/storageservices/file-service-rest-api).
//
// # Model
//
// A share is a record in store.SpaceShare; its directories and files are
// records in store.SpaceFile keyed by (account, share, snapshot, parent
// path, name), with paths case-folded because Azure Files names are
// case-preserving and case-insensitive. The live share has snapshot "";
// a share snapshot is a copy of those records under its x-ms-snapshot
// instant, read through ?sharesnapshot= and never written.
//
// Files are sparse. Their content is a map of written ranges, one record
// per segment in store.SpaceFileIndex keyed by (file id, offset), each
// pointing at a piece of an immutable extent (package extent) and holding
// one reference to it. Unwritten bytes read as zeros and cost nothing, so a
// 100 GiB file with a few ranges written stores only those ranges. Put Range
// writes an extent first and then, in one store transaction, splices the
// map (package ranges does the arithmetic); snapshots, Copy File and Put
// Range From URL between files share extents by reference instead of copying
// bytes. Range records are keyed by file id, not path, so Rename moves
// directory and file records only.
//
// A file of an NFS share may have several names (hard links,
// nfs_hardlink.go). Its state then lives in one link record keyed by its
// id, beside its ranges, and each name's record holds only the name;
// loadNode and saveNode join and split the two, so that every operation on
// a path acts on the file.
//
// SMB state (open handles with their access and share modes, and
// delete-pending) lives in the directory and file records; package smbstate
// decides which REST operations it refuses with 409 SharingViolation. Until
// the SMB endpoint exists, tests write that state through a test hook.
//
// Deleting a share. Directory, file and range records are keyed by share
// name, so Delete Share removes a share's records, or with share soft delete
// on moves them under a tombstone name until Undelete Share moves them back,
// in bounded transactions (package keymove) with the share hidden
// meanwhile; a background reaper purges deleted shares whose retention
// ended (share_softdelete.go, share_delete.go, share_reaper.go).
//
// # Guarantees
//
// Every request runs in one store transaction (or one snapshot view for
// reads), except Delete Share and Undelete Share (above), so writes are atomic and last-writer-wins, except where a file
// lease, a share lease (its writes and deletion) or an SMB open says otherwise. Every
// write of a share, directory or file takes a new ETag; lease operations
// do not. Copies complete inside their request (x-ms-copy-status: success).
//
// # Caveats
//
// Blob copy sources are read over HTTP from this server's Blob service,
// because the blob records belong to that service. File permissions are
// stored in the format they were given in and converted between SDDL and
// binary descriptors (internal/rule/sddl) when Get Permission asks for the other
// one. REST requests see a share being
// deleted or moved as absent; the SMB endpoint (smbfs.go) checks only that
// the share's record exists, so a tree connect may still reach one during
// that window.
package file
