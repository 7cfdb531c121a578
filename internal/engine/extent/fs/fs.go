// Package fs is the extent engine that keeps each extent as one file in a
// directory tree.
//
// A write streams into a temp file under <dir>/tmp while computing its MD5
// (unless the context says extent.WithoutMD5), fsyncs it, renames it to <dir>/<id[0:2]>/<id[2:4]>/<id> and fsyncs that
// directory; only then does Write return, so a record that references the ID
// can never outlive a crash that loses its bytes. The two-level fan-out keeps
// directories small (65,536 leaves) however many extents there are.
//
// A crash mid-write leaves a temp file, never a visible extent; Open removes
// temp files older than an hour. Extents are never modified after the rename,
// and a Reader holds an open descriptor, so it keeps reading the whole extent
// even after Remove unlinks it.
package fs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	iofs "io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/extent"
)

const (
	// tmpDirName holds writes in progress; it cannot clash with a fan-out
	// directory, whose names are two hex digits.
	tmpDirName = "tmp"
	// staleTempAge is how old a temp file must be before Open treats it as
	// left over by a crash rather than a write still running in another
	// process sharing the directory.
	staleTempAge = time.Hour
	// copyBufferSize is large so that a big body costs few system calls.
	copyBufferSize = 1 << 20
	idBytes        = 16
)

var bufferPool = sync.Pool{New: func() any {
	b := make([]byte, copyBufferSize)
	return &b
}}

// Engine stores extents as files under one directory. It is safe for
// concurrent use.
type Engine struct {
	dir    string
	tmpDir string
	closed atomic.Bool

	// mkdirMu serialises the creation of fan-out directories so that no
	// write renames into a directory whose own entry is not yet durable.
	mkdirMu sync.Mutex
	// durableDirs caches fan-out directories known to exist durably.
	durableDirs sync.Map
}

var _ extent.Engine = (*Engine)(nil)

// Open opens (creating if needed) an extent directory and removes temp files
// left over by crashed writes.
func Open(dir string) (*Engine, error) {
	e := &Engine{dir: dir, tmpDir: filepath.Join(dir, tmpDirName)}
	if err := os.MkdirAll(e.tmpDir, 0o755); err != nil {
		return nil, fmt.Errorf("extent/fs: create %s: %w", e.tmpDir, err)
	}
	if err := syncDir(dir); err != nil {
		return nil, err
	}
	if err := e.removeStaleTemps(time.Now()); err != nil {
		return nil, err
	}
	return e, nil
}

func (e *Engine) removeStaleTemps(now time.Time) error {
	entries, err := os.ReadDir(e.tmpDir)
	if err != nil {
		return fmt.Errorf("extent/fs: read %s: %w", e.tmpDir, err)
	}
	for _, entry := range entries {
		info, err := entry.Info()
		if err != nil {
			continue // removed meanwhile
		}
		if now.Sub(info.ModTime()) < staleTempAge {
			continue
		}
		err = os.Remove(filepath.Join(e.tmpDir, entry.Name()))
		if err != nil && !errors.Is(err, iofs.ErrNotExist) {
			return fmt.Errorf("extent/fs: remove stale temp file: %w", err)
		}
	}
	return nil
}

// Write copies r into a new extent and returns once it is durable.
func (e *Engine) Write(ctx context.Context, r io.Reader, limit int64) (extent.Info, error) {
	if e.closed.Load() {
		return extent.Info{}, extent.ErrClosed
	}
	id, err := newID()
	if err != nil {
		return extent.Info{}, err
	}
	tmp, err := os.CreateTemp(e.tmpDir, id+".*")
	if err != nil {
		return extent.Info{}, fmt.Errorf("extent/fs: create temp file: %w", err)
	}
	info, err := e.fill(ctx, tmp, r, limit)
	if err == nil {
		info.ID = id
		err = e.publish(tmp.Name(), id)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return extent.Info{}, err
	}
	return info, nil
}

// fill streams r into tmp, fsyncs and closes it, and reports size and MD5.
func (e *Engine) fill(ctx context.Context, tmp *os.File, r io.Reader, limit int64) (extent.Info, error) {
	sum := extent.ContentHash(ctx)
	size, err := copyLimited(ctx, tmp, sum, r, limit)
	if err == nil {
		err = tmp.Sync()
	}
	if closeErr := tmp.Close(); err == nil && closeErr != nil {
		err = closeErr
	}
	if err != nil {
		return extent.Info{}, wrapIOError(err)
	}
	info := extent.Info{Size: size}
	sum.Sum(info.MD5[:0])
	return info, nil
}

// wrapIOError leaves the errors callers test for (ErrTooLarge, context
// cancellation, the reader's own errors) reachable through errors.Is.
func wrapIOError(err error) error {
	if errors.Is(err, extent.ErrTooLarge) {
		return err
	}
	return fmt.Errorf("extent/fs: write: %w", err)
}

// copyLimited copies src to dst and sum through one pooled buffer, failing
// with ErrTooLarge as soon as more than limit bytes arrive (limit < 0 means
// no limit) and with ctx's error once ctx ends.
func copyLimited(ctx context.Context, dst io.Writer, sum hash.Hash, src io.Reader, limit int64) (int64, error) {
	bufp := bufferPool.Get().(*[]byte)
	defer bufferPool.Put(bufp)
	buf := *bufp
	var total int64
	for {
		if err := ctx.Err(); err != nil {
			return total, err
		}
		n, readErr := src.Read(buf)
		if n > 0 {
			total += int64(n)
			if limit >= 0 && total > limit {
				return total, extent.ErrTooLarge
			}
			sum.Write(buf[:n]) // hash.Hash.Write never fails
			if _, err := dst.Write(buf[:n]); err != nil {
				return total, err
			}
		}
		if readErr == io.EOF {
			return total, nil
		}
		if readErr != nil {
			return total, readErr
		}
	}
}

// publish renames a complete, fsynced temp file into its fan-out directory
// and fsyncs that directory so the new name survives a crash.
func (e *Engine) publish(tmpPath, id string) error {
	leaf, err := e.ensureFanout(id)
	if err != nil {
		return err
	}
	if err := os.Rename(tmpPath, filepath.Join(leaf, id)); err != nil {
		return fmt.Errorf("extent/fs: publish: %w", err)
	}
	return syncDir(leaf)
}

// ensureFanout returns the leaf directory of id, creating it and its parent
// when missing and fsyncing the directory that gained each new entry.
func (e *Engine) ensureFanout(id string) (string, error) {
	rel := filepath.Join(id[0:2], id[2:4])
	leaf := filepath.Join(e.dir, rel)
	if _, ok := e.durableDirs.Load(rel); ok {
		return leaf, nil
	}
	e.mkdirMu.Lock()
	defer e.mkdirMu.Unlock()
	parent := filepath.Join(e.dir, id[0:2])
	for _, d := range []struct{ path, in string }{{parent, e.dir}, {leaf, parent}} {
		err := os.Mkdir(d.path, 0o755)
		if errors.Is(err, iofs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("extent/fs: create %s: %w", d.path, err)
		}
		if err := syncDir(d.in); err != nil {
			return "", err
		}
	}
	e.durableDirs.Store(rel, struct{}{})
	return leaf, nil
}

func syncDir(path string) error {
	d, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("extent/fs: open directory: %w", err)
	}
	err = d.Sync()
	if closeErr := d.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		return fmt.Errorf("extent/fs: fsync directory %s: %w", path, err)
	}
	return nil
}

func newID() (string, error) {
	var b [idBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("extent/fs: random id: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// validID reports whether id has the shape newID produces. Every other
// string is refused before it reaches a path, so an ID read from a corrupt
// record cannot name a file outside the tree.
func validID(id string) bool {
	if len(id) != 2*idBytes {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

func (e *Engine) path(id string) string {
	return filepath.Join(e.dir, id[0:2], id[2:4], id)
}

// Open returns a reader of the extent. It holds an open descriptor, so it
// keeps working after the extent is removed.
func (e *Engine) Open(ctx context.Context, id string) (extent.Reader, error) {
	if e.closed.Load() {
		return nil, extent.ErrClosed
	}
	if !validID(id) {
		return nil, extent.ErrNotFound
	}
	f, err := os.Open(e.path(id))
	if errors.Is(err, iofs.ErrNotExist) {
		return nil, extent.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("extent/fs: open: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("extent/fs: stat: %w", err)
	}
	return &reader{File: f, size: st.Size()}, nil
}

// reader is an open extent file. Its size is fixed at Open: extents never
// change after they are published.
type reader struct {
	*os.File
	size int64
}

func (r *reader) Size() int64 { return r.size }

// Section returns the file itself positioned at off and limited to n bytes:
// the shape net/http's response writer hands to sendfile.
func (r *reader) Section(off, n int64) (io.Reader, error) {
	if _, err := r.File.Seek(off, io.SeekStart); err != nil {
		return nil, err
	}
	return &io.LimitedReader{R: r.File, N: n}, nil
}

// Remove unlinks the extent; open readers keep their descriptor. The
// directory is not fsynced: a removal lost in a crash only leaves garbage
// that the next sweep removes again.
func (e *Engine) Remove(ctx context.Context, id string) error {
	if !validID(id) {
		return nil
	}
	err := os.Remove(e.path(id))
	if err != nil && !errors.Is(err, iofs.ErrNotExist) {
		return fmt.Errorf("extent/fs: remove: %w", err)
	}
	return nil
}

// List walks the fan-out tree and reports each extent with its age from the
// file's modification time, which is when its write finished.
func (e *Engine) List(ctx context.Context, fn func(id string, ageSeconds float64) error) error {
	now := time.Now()
	var fnErr error
	err := filepath.WalkDir(e.dir, func(path string, d iofs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, iofs.ErrNotExist) {
				return nil // removed during the walk
			}
			return err
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ctxErr
		}
		if d.IsDir() {
			if d.Name() == tmpDirName && filepath.Dir(path) == e.dir {
				return iofs.SkipDir
			}
			return nil
		}
		id := d.Name()
		if !validID(id) || path != e.path(id) {
			return nil // not an extent: a stray file
		}
		info, err := d.Info()
		if errors.Is(err, iofs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(id, now.Sub(info.ModTime()).Seconds()); err != nil {
			fnErr = err
			return err
		}
		return nil
	})
	switch {
	case fnErr != nil:
		return fnErr
	case err != nil:
		return fmt.Errorf("extent/fs: list: %w", err)
	}
	return nil
}

// Close makes later Writes and Opens fail with extent.ErrClosed. Readers
// already open stay valid until they are closed.
func (e *Engine) Close() error {
	e.closed.Store(true)
	return nil
}
