package s3extent

import (
	"context"
	"fmt"
	"time"

	"github.com/minio/minio-go/v7"
)

// List reports every extent with its age: data objects without a tombstone
// (aged from the later of the object and its done marker), removed extents
// whose hold has passed (aged from their tombstone), so that the
// collector's Remove deletes them, and incomplete uploads (aged from their
// last part), so that it aborts those a crash left. The three object kinds
// are listed side by side in key order and merged by id, so the walk holds
// one object of each kind at a time. fn may call Remove.
func (e *Engine) List(ctx context.Context, fn func(id string, ageSeconds float64) error) error {
	if err := e.open(); err != nil {
		return err
	}
	// Cancelling stops the listings' goroutines when fn stops the walk.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	data, done, removed := e.walk(ctx, dataDir), e.walk(ctx, doneDir), e.walk(ctx, removedDir)
	for {
		id, err := nextID(data, done, removed)
		if err != nil {
			return fmt.Errorf("s3extent: list: %w", err)
		}
		if id == "" {
			break
		}
		age, report := e.extentAge(data.take(id), done.take(id), removed.take(id))
		if !report {
			continue
		}
		if err := fn(id, age.Seconds()); err != nil {
			return err
		}
	}
	return e.listUploads(ctx, fn)
}

// extentAge is the age List reports for an extent from the times of its
// objects (zero when absent), and whether List reports it at all.
func (e *Engine) extentAge(data, done, removed time.Time) (time.Duration, bool) {
	if !removed.IsZero() {
		age := e.age(removed)
		return age, age > e.removeHold
	}
	if done.After(data) {
		return e.age(done), true
	}
	return e.age(data), true
}

// listUploads reports each incomplete upload under the prefix by the id of
// its extent, aged from its last progress.
func (e *Engine) listUploads(ctx context.Context, fn func(id string, ageSeconds float64) error) error {
	for up := range e.client.ListIncompleteUploads(ctx, e.bucket, e.prefix+dataDir, true) {
		if up.Err != nil {
			return fmt.Errorf("s3extent: list uploads: %w", up.Err)
		}
		id := e.idOf(dataDir, up.Key)
		if id == "" {
			continue
		}
		progress, err := e.lastProgress(ctx, up)
		if err != nil {
			return fmt.Errorf("s3extent: list parts of %s: %w", id, err)
		}
		if err := fn(id, e.age(progress).Seconds()); err != nil {
			return err
		}
	}
	return nil
}

// lastProgress is when an upload last advanced: its latest part, or its
// start when it has none.
func (e *Engine) lastProgress(ctx context.Context, up minio.ObjectMultipartInfo) (time.Time, error) {
	latest := up.Initiated
	for marker := 0; ; {
		res, err := e.core.ListObjectParts(ctx, e.bucket, up.Key, up.UploadID, marker, 1000)
		if isNotFound(err) {
			return latest, nil // completed or aborted meanwhile
		}
		if err != nil {
			return time.Time{}, err
		}
		for _, p := range res.ObjectParts {
			if p.LastModified.After(latest) {
				latest = p.LastModified
			}
		}
		if !res.IsTruncated || res.NextPartNumberMarker <= marker {
			return latest, nil
		}
		marker = res.NextPartNumberMarker
	}
}

// listing is one kind of object, listed in key order, with the next one
// read ahead.
type listing struct {
	e    *Engine
	dir  string
	ch   <-chan minio.ObjectInfo
	head string    // id of the next object; "" at the end
	at   time.Time // its Last-Modified
	err  error
	read bool // head is loaded
}

func (e *Engine) walk(ctx context.Context, dir string) *listing {
	ch := e.client.ListObjects(ctx, e.bucket, minio.ListObjectsOptions{Prefix: e.prefix + dir, Recursive: true})
	return &listing{e: e, dir: dir, ch: ch}
}

// peek loads the next object with an extent id, skipping foreign keys.
func (l *listing) peek() (string, error) {
	for !l.read {
		obj, ok := <-l.ch
		switch {
		case !ok:
			l.head, l.read = "", true
		case obj.Err != nil:
			l.err = obj.Err
			return "", l.err
		default:
			if id := l.e.idOf(l.dir, obj.Key); id != "" {
				l.head, l.at, l.read = id, obj.LastModified, true
			}
		}
	}
	return l.head, l.err
}

// take consumes the head if it is id and returns its time, else zero.
func (l *listing) take(id string) time.Time {
	if l.head != id || !l.read {
		return time.Time{}
	}
	l.read = false
	return l.at
}

// nextID is the smallest id at the head of the listings; "" when all ended.
func nextID(ls ...*listing) (string, error) {
	next := ""
	for _, l := range ls {
		id, err := l.peek()
		if err != nil {
			return "", err
		}
		if id != "" && (next == "" || id < next) {
			next = id
		}
	}
	return next, nil
}
