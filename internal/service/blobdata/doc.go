// Package blobdata is the Blob service's stored state: the container, blob
// and uncommitted-block records, their keys and encoding, and the
// transactions over them that need no HTTP request: lookup, save and
// removal of containers and blobs, the states of a blob (snapshots,
// versions, the soft-deleted copy), block and page-map content, extent
// references, the tag index and the expiry index. Leases, copy state,
// tiers, retention and encryption are fields of the records here; the
// rules that change them on a request stay with the handlers.
//
// Boundary. Package blob (the Blob REST API) and the services that will
// share its namespace (the Data Lake API, whose paths are blobs) parse
// requests, evaluate conditions and write answers; they read and change
// records only through this package, in their own store transactions. So
// this package imports no HTTP handling and nothing of a service: an
// error it returns is a sentinel, a store error, or an azerr error only
// where the record itself decides the Azure code (a protected version,
// for example).
//
// Model. Every container is one record in store.SpaceContainer keyed
// (account, container); every blob one record in store.SpaceBlob keyed
// (account, container, name, state) where state is ElemBase ("") for the
// base blob, so a prefix scan lists a container's blobs in byte-wise name
// order, as the service orders them. The other states of a blob (its
// snapshots, previous versions and soft-deleted copy; states.go) follow
// the base blob's key and are whole records that share its extents: a
// snapshot or a version costs a record, not bytes. Uncommitted blocks live
// in store.SpaceBlock keyed (account, container, name, block id). A blob
// whose only content is uncommitted blocks has a placeholder record (no
// committed content) so that listings with uncommitted blobs show it in
// name order. The encoding of every record is pinned by
// records_golden_test.go: records written by earlier releases must read
// back, so fields are only ever added under new tags.
//
// Content. A blob's content is a list of extent segments (one for Put
// Blob, one per block for Put Block List). Each segment and each
// uncommitted block holds one extent reference, adjusted through RefDelta
// in the same Update that changes the records. A page blob's segments are
// a sparse page map covering its size, where a segment without an extent
// is a hole that reads as zeros (pagemap.go).
//
// History. A write that replaces a blob or its metadata keeps the state
// it replaces as the account's data protection policy asks (Policy,
// LoadPolicy): a previous version, a soft-deleted snapshot, or nothing
// (BeginHistory, History.Finish; versioning.go). A delete does the same
// through Deletion (deletion.go), which also purges soft-deleted states
// whose retention has ended and restores the others for Undelete Blob.
//
// Index tags. A blob's tags are in its record and, for base blobs, in a
// tag index in store.SpaceBlobIndex (tags_index.go) that every write keeps
// in the same Update through ReindexTags; blob expiry instants likewise in
// store.SpaceBlobExpiry through ReindexExpiry (expiry_index.go).
package blobdata
