// Package blob is Lazuli's Blob service: its route table, the handlers that
// parse each operation's request into typed arguments, the operations that
// run in one store transaction, and the XML bodies of its answers.
//
// Records. The records this service reads and writes, their keys and
// encoding, and the transactions over them that need no request (states
// of a blob, content segments and page maps, extent references, the tag
// and expiry indexes) are package blobdata, which the Data Lake API will
// share; this package holds what is HTTP: parsing, conditions, the order
// of checks each operation makes, and the answers. Bodies are streamed
// into immutable extents before the record that references them commits;
// Put Block List commits blocks without copying bytes, and Put Page
// replaces only the page-map segments its range touches.
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
