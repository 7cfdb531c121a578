// Package s3extent is the extent engine on S3-compatible object storage:
// blob and file content lives in a bucket that every node of a scaled-out
// Lazuli reaches, beside a record store of any kind. It speaks S3 through
// the minio-go client (Signature Version 4), so it works with AWS S3 and
// with servers that implement its API (SeaweedFS, MinIO, Ceph RGW).
//
// # Objects
//
// Under the configured prefix an extent id names up to three objects:
//
//	data/<id>     the content; tagged lazuli=removed by Remove
//	done/<id>     empty; written after a multipart upload completes
//	removed/<id>  empty; written by Remove (a tombstone)
//
// # Writing
//
// Write reads the content one part (Options.PartSize) at a time, hashing it
// as it goes. Content that fits in one part is stored by one PutObject with
// its Content-MD5, so the server checks it; larger content goes up as a
// multipart upload whose parts are invisible until CompleteMultipartUpload,
// which Write calls only once the whole input was read ("Uploading and
// copying objects using multipart upload", Amazon S3 User Guide). A failed
// or cancelled Write aborts its upload. Either way the object exists,
// complete, before Write returns, so before any record can reference it,
// and an interrupted upload never leaves a visible partial extent.
//
// S3 gives a multipart object the Last-Modified of its upload's start, so a
// long upload would look old the moment it completes. Write therefore puts
// the done marker before returning, and List measures the age of a data
// object from the later of the two.
//
// # Readers and Remove
//
// The extent contract keeps a Reader valid after Remove, as an open file is
// after unlink. Remove therefore only tags the data object and writes the
// tombstone: Open and List ignore the extent from then on, and readers
// opened before keep reading data/<id>. Once the tombstone is older than
// Options.RemoveHold, List reports the extent again and the collector's
// next Remove deletes its objects. Nodes need no coordination beyond the
// bucket: a tag and a tombstone are visible to all, deletes are
// idempotent, and the collector's own records (package extent, collect.go)
// decide what is removed, as with pgextent. A reader open longer than
// RemoveHold after a Remove may fail.
//
// Open sends one request, a GET of the whole object: a missing object is
// its 404, the size its Content-Length, and a removal its
// x-amz-tagging-count, so no HEAD of the object or of its tombstone comes
// first. The collector's protocol would keep a reader that resolved a
// record within its grace period from ever opening a removed extent, but
// not one slower than that, nor a caller of the engine itself; the tag
// keeps Open's ErrNotFound for every one of them. The reader goes on
// reading that GET's body while its reads follow one another from the
// start, as a download's do, so a whole extent costs one request of any
// size; a read elsewhere drops the body (and its connection) and reads
// with ranged GETs of at least 4 MiB, keeping the last one. A body that
// breaks off part way is dropped the same way. The credentials need
// s3:PutObjectTagging and, for the count to be sent, s3:GetObjectTagging
// (Amazon S3 API Reference, GetObject, x-amz-tagging-count).
//
// # Interrupted uploads
//
// List also reports each incomplete multipart upload under the prefix, aged
// from its last uploaded part, so that an upload a crash cut short is an
// orphan to the collector like any unreferenced extent; Remove aborts it.
// A live upload whose parts keep arriving always looks young.
//
// # Traffic
//
// The engine counts every request it sends by S3 operation (Traffic,
// Kinds) and the body bytes it sends and receives, at its HTTP transport,
// so that retries and the client's own requests count as the server sees
// them; the server exposes the counts at /metrics as lazuli_s3_*.
package s3extent
