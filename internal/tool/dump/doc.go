// Package dump copies everything Lazuli stores, every account's records and
// the extents they reference, from one store and extent engine to another
// through a single byte stream: a backup that can be restored, and the way
// to migrate between engines (sqlite to postgres, postgres to sqlite, ...).
// The lazuli dump and lazuli load commands are thin wrappers around Dump and
// Load.
//
// # Consistency
//
// Dump reads every record inside one store View, so the stream holds the
// state of one snapshot even while servers keep writing: never half of an
// Update, never a blob without the blocks its record names. Extents are
// immutable, so reading one later than its record is safe as long as it
// still exists. An extent that is referenced in the snapshot but freed by a
// write after it is removed by the collector once its grace period (five
// minutes in lazuli serve) has passed; Dump reads the extents right after
// its first pass over the records and still inside the View, and fails with
// a message saying so if one has already been collected. A dump of a store
// under heavy overwrite that takes longer than the grace period to copy its
// extents should therefore be taken from a stopped server (or rerun).
//
// The View stays open for the whole dump. On PostgreSQL that is one long
// read-only REPEATABLE READ transaction (it takes no locks but holds back
// vacuum of the record table meanwhile), on SQLite one read snapshot (the
// WAL cannot be checkpointed past it meanwhile).
//
// # What is copied
//
// Every record except two kinds of bookkeeping that mean nothing in another
// store: SpaceMeta, which engines may keep for themselves, and the
// collection queue (SpaceExtentGC) of extents nothing references any more.
// Every extent holding a reference (SpaceExtentRef) is copied; unreferenced
// ones (freed, or orphans of failed uploads) are not.
//
// # Extent IDs
//
// Records name extents by ID, and an extent engine chooses the ID of every
// extent it writes, so a loaded extent gets a new ID and every record naming
// it must be rewritten. Dump therefore finds each reference and writes it as
// a label: extents are numbered in the order the records first mention them
// (records in key order), the stream carries the positions of the
// references inside each record, and Load replaces each labelled position
// with the ID its target engine gave that extent. A reference is
// recognised as a 32-character lower-case hexadecimal run equal to the ID of
// a referenced extent: every engine draws IDs as 128 random bits in that
// form, and no ID is ever shown to a client, so no user data can hold one
// by anything but a 2^-128 chance. Dump refuses an extent ID of any other
// shape rather than copy records it cannot rewrite.
//
// Dump keeps the ID and reference count of every referenced extent in
// memory while it runs (roughly a hundred bytes each), and Load the target
// ID of each; records and content are streamed.
//
// Labels make dumps canonical: the same data gives the same bytes whatever
// the engine and whatever IDs its extents have, so dumping a store, loading
// the stream elsewhere and dumping again reproduces the first stream byte
// for byte.
//
// # Format
//
// A stream is a sequence of frames: a type byte, the body length as an
// unsigned varint, the body, and a CRC-32C (Castagnoli) of all three,
// big-endian. In order:
//
//	'H' header   "lazuli-dump", uvarint format version (1)
//	'X' extent   uvarint size, the extent's bytes; the i-th extent frame is label i
//	'R' record   uvarint key length, key, uvarint value length, value,
//	             uvarint reference count, then per reference
//	             uvarint position (in key followed by value), uvarint label;
//	             the 32 bytes at a position are the label in hexadecimal
//	'E' end      uvarint extents, uvarint records, uvarint extent bytes
//
// Extent frames come before every record frame that names them, so Load
// writes each extent before any record can point at it. The end frame
// makes a truncated stream detectable: Load fails without it.
//
// # Loading
//
// Load refuses a target that holds any record or extent unless forced,
// writes the extents as they arrive, and the records in batched Updates.
// The batches are not one transaction: a load that fails part way leaves
// the records of the batches it committed (and extents no record
// references, which the collector's orphan sweep removes). Load into a store
// no server is using, then start the servers. With Force, the stream's
// records replace records with the same keys and other records stay; an
// extent referenced only by a replaced record keeps its reference count and
// is never collected, so Force is for a retry into the same target or a
// target known to hold unrelated accounts.
package dump
