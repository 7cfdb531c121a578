// Package pgextent is the extent engine for PostgreSQL: blob and file
// content lives in the same database as the metadata, so every node of a
// scaled-out Lazuli reads every extent without a shared file system.
//
// # Tables
//
//	extent(id text PRIMARY KEY, size bigint, md5 bytea, chunk integer,
//	       written timestamptz, removed boolean)
//	extent_chunk(id, seq integer, data bytea, PRIMARY KEY (id, seq))
//	extent_reader(id, token bigint, opened timestamptz, PRIMARY KEY (id, token))
//
// An extent's bytes are split into chunk rows of Options.ChunkSize bytes
// (4 MiB at most): chunk seq holds bytes [seq*chunk, (seq+1)*chunk). The chunk
// size is stored per extent, so nodes configured differently read each
// other's extents. Chunk rows are stored uncompressed (STORAGE EXTERNAL):
// blob content is often already compressed, and PostgreSQL then need not
// decompress a whole chunk to serve part of it.
//
// # Writing
//
// Write inserts the extent row first (size NULL: being written), then each
// chunk in its own autocommitted INSERT as it is read from the caller,
// hashing as it goes, so only one chunk is in memory and no transaction or
// connection is held while the client sends the next chunk. A final UPDATE
// sets the size and MD5 (zeros when the caller asked for none with
// extent.WithoutMD5). Every statement has committed, hence is durable,
// before Write returns, so before any metadata commit can reference the
// extent. Each chunk refreshes the row's written time, so List reports the
// age of a write in progress from its last progress: an upload is never
// mistaken for an orphan while it advances. A write that fails is deleted;
// one cut short by a crash stays listed until the orphan sweep removes it.
//
// # Readers and Remove
//
// The extent contract keeps a Reader valid after Remove, as an open file is
// after unlink. Open therefore registers the reader in extent_reader, and
// Remove deletes an extent only when no reader is registered; otherwise it
// marks it removed (Open and List then ignore it) and the last reader's
// Close deletes it. Row locks on the extent row order these steps, so a
// concurrent Open either registers before the removal decision or finds the
// extent gone. A reader left registered by a crashed process is ignored once
// it is older than readerTTL, and the next sweep's Remove deletes the extent.
// Reads hold no transaction, so a long download does not hold back vacuum.
//
// # Connections
//
// Open takes a URL and owns its connection pool rather than sharing the
// store's: a burst of large uploads and downloads then waits for extent
// connections and never starves metadata transactions of theirs. Size the
// two pools together against the server's max_connections.
package pgextent
