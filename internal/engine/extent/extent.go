// Package extent stores immutable byte extents: the content of blobs and
// files. Metadata records in the store point at extents by ID; an extent is
// written completely and made durable before any record references it, and it
// is never modified afterwards, so a reader that resolved a record can stream
// the old bytes whole while a writer replaces them.
//
// Engines: fs (a directory of files: temp file, fsync, rename, directory
// fsync), memory, pgextent (chunk rows in PostgreSQL, shared by every
// node) and s3extent (objects in an S3 bucket, shared by every node). Inline (inline.go) wraps any of them so that content of at most a
// few KiB travels inside the extent id, in the referencing record. Reference counting (refs.go) and collection
// (collect.go) work on any engine through the store: a crash leaves
// unreferenced extents (garbage that the sweep removes), never a record
// pointing at a missing one. The extenttest package is the conformance suite
// every engine runs.
package extent

import (
	"context"
	"errors"
	"io"
)

// ErrNotFound is returned when an extent does not exist (or was collected).
var ErrNotFound = errors.New("extent: not found")

// Info describes an extent that was written.
type Info struct {
	ID   string   // opaque, unique, safe as a file name
	Size int64    // bytes
	MD5  [16]byte // MD5 of the content, computed while writing; zero under WithoutMD5
}

// Engine is a place extents live. Implementations are safe for concurrent use.
type Engine interface {
	// Write copies r to a new extent and returns once it is durable. At most
	// limit bytes are read when limit >= 0; more input is ErrTooLarge.
	Write(ctx context.Context, r io.Reader, limit int64) (Info, error)
	// Open returns a reader of the whole extent. The reader stays valid even if
	// the extent is removed while it is open.
	Open(ctx context.Context, id string) (Reader, error)
	// Remove deletes an extent; removing a missing one is not an error.
	Remove(ctx context.Context, id string) error
	// List calls fn for every extent with its age in seconds since it was
	// written, for the sweep of unreferenced extents. Extents written or
	// removed during the walk may or may not be reported; fn may call Remove.
	// A non-nil error from fn stops the walk and is returned.
	List(ctx context.Context, fn func(id string, ageSeconds float64) error) error
	// Close releases the engine.
	Close() error
}

// Reader reads an open extent.
type Reader interface {
	io.ReaderAt
	io.Closer
	Size() int64
}

// ErrTooLarge is returned by Write when the input exceeds its limit.
var ErrTooLarge = errors.New("extent: input exceeds limit")

// ErrClosed is returned by Write and Open after the engine was closed.
var ErrClosed = errors.New("extent: engine closed")

// Sectioner is implemented by readers whose bytes the operating system can
// send without copying them through user space (a file: sendfile). Section
// returns a reader of n bytes from off; it moves the reader's file offset,
// so a reader serves one Section at a time.
type Sectioner interface {
	Section(off, n int64) (io.Reader, error)
}
