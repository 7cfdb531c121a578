// Package blob is Lazuli's Blob service: its route table, the handlers that
// parse each operation's request into typed arguments, the operations that
// run in one store transaction, and the XML bodies of its answers.
//
// Model. Every container is one record in store.SpaceContainer keyed
// (account, container); every blob one record in store.SpaceBlob keyed
// (account, container, name, state) where state is "" for the base blob, so
// a prefix scan lists a container's blobs in byte-wise name order, as the
// service orders them. The other states of a blob (its snapshots, previous
// versions and soft-deleted copy; selector.go) follow the base blob's key
// and are whole records that share its extents: a snapshot or a version
// costs a record, not bytes. Uncommitted blocks live in store.SpaceBlock
// keyed (account, container, name, block id). A blob whose only content is
// uncommitted blocks has a placeholder record (no committed content) so
// that List Blobs with include=uncommittedblobs can show it in name order.
//
// Content. Bodies are streamed into immutable extents before the record that
// references them commits; a blob's content is a list of extent segments
// (one for Put Blob, one per block for Put Block List, which commits blocks
// without copying bytes). Each segment and each uncommitted block holds one
// extent reference, adjusted in the same Update that changes the records.
// An append blob's segments are its blocks. A page blob's segments are a
// sparse page map covering its size, where a segment without an extent is
// a hole that reads as zeros (pagemap.go): Put Page replaces only the
// segments its range touches, and Get Page Ranges and its snapshot diff
// are walks over one or two maps.
//
// Index tags. A blob's tags are in its record and, for base blobs, in a tag
// index in store.SpaceBlobIndex (tags_index.go) that every write keeps in
// the same Update, so Find Blobs by Tags reads only the entries of one key
// instead of every blob.
//
// Time-driven state. Expiry, immutability policies, soft delete and
// retention are stored instants compared with the clock at request time,
// so every node answers alike. Work they cause later (removing expired
// blobs, purging deleted containers) is found through store.SpaceBlobExpiry,
// an index ordered by instant, and done by a background reaper in bounded
// transactions (expiry.go, expiry_reaper.go). Protected versions
// (immutability.go) are found per container through an index of protected
// names (immutability_container.go).
//
// Container moves. Soft delete, Restore Container and Rename Container move
// a container's records to another key name in bounded transactions, with
// the container hidden meanwhile; a deleted container's records wait under
// a tombstone name no request can address (container_move.go).
//
// Batches. A Blob Batch sub-request is authenticated with its own
// credentials and routed through the same table as a lone request
// (batch.go).
//
// Concurrency. ETags come from etag.Next inside the Update that writes the
// object; conditional headers are evaluated by package cond and leases by
// package lease against the state read in that same transaction, so an
// If-Match write or a leased write can never race a concurrent one.
package blob
