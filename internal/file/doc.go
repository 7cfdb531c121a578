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
// SMB state (open handles with their access and share modes, and
// delete-pending) lives in the directory and file records; package smbstate
// decides which REST operations it refuses with 409 SharingViolation. Until
// the SMB endpoint exists, tests write that state through a test hook.
//
// # Guarantees
//
// Every request runs in one store transaction (or one snapshot view for
// reads), so writes are atomic and last-writer-wins, except where a file
// lease, a share lease (deletion only) or an SMB open says otherwise. Every
// write of a share, directory or file takes a new ETag; lease operations
// do not. Copies complete inside their request (x-ms-copy-status: success).
//
// # Caveats
//
// Blob copy sources are read over HTTP from this server's Blob service,
// because the blob records belong to that service. File permissions are
// stored in the format they were given in; converting between SDDL and
// binary descriptors is not implemented. Soft delete of shares is not
// implemented: deleted shares are gone at once.
package file
