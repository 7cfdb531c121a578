package s3extent

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/tags"
)

// Remove makes extent id unreadable to new readers by tagging its data
// object and writing its tombstone; readers already open keep reading for
// RemoveHold (doc.go).
// Removing an extent whose hold has passed deletes its objects; removing
// one whose upload never completed aborts the upload.
func (e *Engine) Remove(ctx context.Context, id string) error {
	if err := e.open(); err != nil {
		return err
	}
	if !validID(id) {
		return nil
	}
	if err := e.remove(ctx, id); err != nil {
		return fmt.Errorf("s3extent: remove %s: %w", id, ctxErr(ctx, err))
	}
	return nil
}

func (e *Engine) remove(ctx context.Context, id string) error {
	tomb, err := e.client.StatObject(ctx, e.bucket, e.key(removedDir, id), minio.StatObjectOptions{})
	switch {
	case err == nil:
		if e.age(tomb.LastModified) > e.removeHold {
			return e.purge(ctx, id)
		}
		return nil
	case !isNotFound(err):
		return err
	}
	data, err := e.exists(ctx, e.key(dataDir, id))
	if err != nil {
		return err
	}
	if data {
		// The tag first: Open then refuses the extent even if the
		// tombstone's PUT fails, and the collector's retry tags it again.
		tag, err := tags.MapToObjectTags(map[string]string{removedTagKey: removedTagValue})
		if err != nil {
			return err
		}
		err = e.client.PutObjectTagging(ctx, e.bucket, e.key(dataDir, id), tag, minio.PutObjectTaggingOptions{})
		if err != nil {
			return err
		}
		_, err = e.core.PutObject(ctx, e.bucket, e.key(removedDir, id), bytes.NewReader(nil), 0, "", "", minio.PutObjectOptions{})
		return err
	}
	// No content: what can remain is an upload a crash cut short, or a
	// done marker a failed purge left behind.
	if err := e.abortUploads(ctx, id); err != nil {
		return err
	}
	return e.client.RemoveObject(ctx, e.bucket, e.key(doneDir, id), minio.RemoveObjectOptions{})
}

// The tag Remove puts on a data object. Open reads no tag itself, only the
// count of them in its GET's response (x-amz-tagging-count), so any tag on
// a data object marks it removed: the engine owns the tags of the objects
// under its prefix.
const (
	removedTagKey   = "lazuli"
	removedTagValue = "removed"
)

// purge deletes an extent's objects, the tombstone last, so that an
// interrupted purge leaves the extent removed and listed for another.
func (e *Engine) purge(ctx context.Context, id string) error {
	for _, dir := range []string{dataDir, doneDir, removedDir} {
		err := e.client.RemoveObject(ctx, e.bucket, e.key(dir, id), minio.RemoveObjectOptions{})
		if err != nil && !isNotFound(err) {
			return err
		}
	}
	return nil
}

// abortUploads aborts every incomplete multipart upload of extent id's
// content.
func (e *Engine) abortUploads(ctx context.Context, id string) error {
	key := e.key(dataDir, id)
	for up := range e.client.ListIncompleteUploads(ctx, e.bucket, key, true) {
		if up.Err != nil {
			return up.Err
		}
		if up.Key != key {
			continue
		}
		if err := e.core.AbortMultipartUpload(ctx, e.bucket, key, up.UploadID); err != nil && !isNotFound(err) {
			return err
		}
	}
	return nil
}

// exists reports whether the object at key exists.
func (e *Engine) exists(ctx context.Context, key string) (bool, error) {
	_, err := e.client.StatObject(ctx, e.bucket, key, minio.StatObjectOptions{})
	if isNotFound(err) {
		return false, nil
	}
	return err == nil, ctxErr(ctx, err)
}

// age is how long ago t was by the engine's clock, never negative: the
// server's clock may run a little ahead of this node's.
func (e *Engine) age(t time.Time) time.Duration {
	return max(e.clock.Now().Sub(t), 0)
}

// idOf returns the extent id an object key under dir names, or "".
func (e *Engine) idOf(dir, key string) string {
	id, ok := strings.CutPrefix(key, e.prefix+dir)
	if !ok || !validID(id) {
		return ""
	}
	return id
}
