package s3extent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/lazuli-storage/lazuli/internal/base/clock"
	"github.com/lazuli-storage/lazuli/internal/engine/extent"
)

const (
	// MinPartSize is S3's smallest part of a multipart upload but the last
	// (Amazon S3 multipart upload limits).
	MinPartSize = 5 << 20
	// MaxPartSize is S3's largest part.
	MaxPartSize = 5 << 30
	// DefaultPartSize is the part size when Options.PartSize is 0; one
	// buffer of it is held by each Write in progress.
	DefaultPartSize = 8 << 20
	// DefaultRemoveHold is how long a removed extent's content stays
	// readable by the readers that had it open, as pgextent's reader
	// registrations last.
	DefaultRemoveHold = 24 * time.Hour
	// cleanupTimeout bounds the requests that abort a failed upload after
	// the caller's context ended.
	cleanupTimeout = 30 * time.Second
)

// Options configure Open.
type Options struct {
	// Credentials sign the requests; nil reads AWS_ACCESS_KEY_ID,
	// AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN from the environment.
	Credentials *credentials.Credentials
	// PartSize is the size of the parts large content is uploaded in,
	// MinPartSize to MaxPartSize; 0 means DefaultPartSize.
	PartSize int
	// RemoveHold is how long Remove keeps the content for open readers
	// before the collector may delete it; 0 means DefaultRemoveHold.
	RemoveHold time.Duration
	// Clock measures the ages List reports against the objects' times;
	// nil means clock.Real.
	Clock clock.Clock
}

// Location is where an engine keeps its objects, parsed from a URL of the
// form s3://BUCKET/PREFIX?endpoint=HOST:PORT&region=R&secure=false.
type Location struct {
	Bucket   string
	Prefix   string // "" or ending in "/"
	Endpoint string // host:port; default s3.amazonaws.com
	Region   string // "" lets the client ask the server
	Secure   bool   // HTTPS; default true
}

// ParseURL reads an s3:// URL. Unknown query parameters are errors, so that
// a misspelt one is not silently ignored.
func ParseURL(raw string) (Location, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return Location{}, fmt.Errorf("s3extent: %w", err)
	}
	if u.Scheme != "s3" || u.Host == "" || u.Opaque != "" {
		return Location{}, fmt.Errorf("s3extent: %q: want s3://BUCKET/PREFIX?endpoint=HOST:PORT", raw)
	}
	loc := Location{Bucket: u.Host, Prefix: strings.Trim(u.Path, "/"), Endpoint: "s3.amazonaws.com", Secure: true}
	if loc.Prefix != "" {
		loc.Prefix += "/"
	}
	for name, values := range u.Query() {
		v := values[len(values)-1]
		switch name {
		case "endpoint":
			loc.Endpoint = v
		case "region":
			loc.Region = v
		case "secure":
			if loc.Secure, err = strconv.ParseBool(v); err != nil {
				return Location{}, fmt.Errorf("s3extent: secure=%q: want true or false", v)
			}
		default:
			return Location{}, fmt.Errorf("s3extent: unknown parameter %q (endpoint, region, secure)", name)
		}
	}
	return loc, nil
}

// Engine is an extent.Engine on an S3 bucket.
type Engine struct {
	client     *minio.Client
	core       minio.Core
	bucket     string
	prefix     string
	partSize   int
	removeHold time.Duration
	clock      clock.Clock
	bufs       sync.Pool // *[]byte part buffers for Write
	traffic    *traffic

	mu     sync.Mutex
	closed bool
}

var _ extent.Engine = (*Engine)(nil)

// Open connects to the bucket at loc and checks that it exists. Several
// nodes may open one location at once.
func Open(ctx context.Context, loc Location, opts Options) (*Engine, error) {
	part := opts.PartSize
	if part == 0 {
		part = DefaultPartSize
	}
	if part < MinPartSize || part > MaxPartSize {
		return nil, fmt.Errorf("s3extent: part size %d outside %d..%d", part, MinPartSize, MaxPartSize)
	}
	creds := opts.Credentials
	if creds == nil {
		creds = credentials.NewEnvAWS()
	}
	transport, err := minio.DefaultTransport(loc.Secure)
	if err != nil {
		return nil, fmt.Errorf("s3extent: %w", err)
	}
	counts := &traffic{}
	client, err := minio.New(loc.Endpoint, &minio.Options{Creds: creds, Secure: loc.Secure, Region: loc.Region,
		Transport: &countingTransport{next: transport, traffic: counts}})
	if err != nil {
		return nil, fmt.Errorf("s3extent: %w", err)
	}
	ok, err := client.BucketExists(ctx, loc.Bucket)
	if err != nil {
		return nil, fmt.Errorf("s3extent: bucket %s at %s: %w", loc.Bucket, loc.Endpoint, err)
	}
	if !ok {
		return nil, fmt.Errorf("s3extent: bucket %s does not exist at %s", loc.Bucket, loc.Endpoint)
	}
	e := &Engine{client: client, core: minio.Core{Client: client}, bucket: loc.Bucket, prefix: loc.Prefix,
		partSize: part, removeHold: opts.RemoveHold, clock: opts.Clock, traffic: counts}
	if e.removeHold <= 0 {
		e.removeHold = DefaultRemoveHold
	}
	if e.clock == nil {
		e.clock = clock.Real{}
	}
	e.bufs.New = func() any { b := make([]byte, e.partSize); return &b }
	return e, nil
}

// Close stops new operations. The client holds nothing that needs
// closing, so readers opened before Close keep reading.
func (e *Engine) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	return nil
}

// open fails once the engine is closed.
func (e *Engine) open() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return extent.ErrClosed
	}
	return nil
}

// The object kinds an extent id names (doc.go).
const (
	dataDir    = "data/"
	doneDir    = "done/"
	removedDir = "removed/"
)

func (e *Engine) key(dir, id string) string { return e.prefix + dir + id }

// idLen is the length of the ids newID makes.
const idLen = 32

// newID returns 128 random bits in hex: unique, opaque, safe as a file name.
func newID() (string, error) {
	var b [idLen / 2]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

// validID reports whether id has newID's shape; no other id names an
// extent, and none reaches outside the engine's prefix.
func validID(id string) bool {
	if len(id) != idLen {
		return false
	}
	_, err := hex.DecodeString(id)
	return err == nil
}

// isNotFound reports an S3 answer that the object (or upload) is absent.
func isNotFound(err error) bool {
	switch minio.ToErrorResponse(err).Code {
	case minio.NoSuchKey, minio.NoSuchUpload, "NotFound":
		return true
	}
	return false
}

// background detaches cleanup from a cancelled request, bounded in time.
func background(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
}

// ctxErr prefers the context's own error to the client's wrapping of it, so
// that callers can tell a cancellation with errors.Is.
func ctxErr(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		return errors.Join(cerr, err)
	}
	return err
}
