package extent

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
)

// Small content is not worth a file (or chunk row) of its own: writing one
// costs a file create, two fsyncs and a rename, several times the cost of
// the metadata commit it precedes. Inline keeps content up to a limit in the
// extent ID itself, so the bytes travel inside the record that references
// them and become durable with that record's commit. Inline IDs start with
// inlinePrefix, which no engine's IDs do; reference counting and collection
// skip them, since there is nothing outside the record to collect.
//
// Each write gets its own ID even for the same bytes: a random tag goes
// before the content ("~tag.content"). Range and page diffs tell writes
// apart by extent ID, and Azure lists a range rewritten with the bytes it
// had as changed (the SDKs' TestFileGetRangeListSupportRename and
// TestBlobDiffPageRangeIfNoneMatchTrue rewrite identical data). IDs written
// before the tag existed ("~content") still read.

// DefaultInlineLimit is the largest content kept inline.
const DefaultInlineLimit = 8 << 10

const inlinePrefix = "~"

var inlineEncoding = base64.RawURLEncoding

// IsInline reports whether id carries its content itself.
func IsInline(id string) bool { return strings.HasPrefix(id, inlinePrefix) }

// Inline wraps e so that content of at most limit bytes is kept inline.
func Inline(e Engine, limit int) Engine {
	return &inlining{Engine: e, limit: limit}
}

type inlining struct {
	Engine
	limit int
}

// Unwrap is the engine content over the limit goes to, for callers that
// read what that engine alone reports (its S3 traffic).
func (in *inlining) Unwrap() Engine { return in.Engine }

func (in *inlining) Write(ctx context.Context, r io.Reader, limit int64) (Info, error) {
	head := make([]byte, in.limit+1)
	n, err := io.ReadFull(r, head)
	switch {
	case err == io.ErrUnexpectedEOF || err == io.EOF:
		head = head[:n]
		if limit >= 0 && int64(n) > limit {
			return Info{}, ErrTooLarge
		}
		return Info{ID: inlineID(head), Size: int64(n), MD5: SumMD5(ctx, head)}, nil
	case err != nil:
		return Info{}, err
	}
	return in.Engine.Write(ctx, io.MultiReader(bytes.NewReader(head), r), limit)
}

func (in *inlining) Open(ctx context.Context, id string) (Reader, error) {
	if !IsInline(id) {
		return in.Engine.Open(ctx, id)
	}
	content := id[len(inlinePrefix):]
	if _, after, tagged := strings.Cut(content, inlineTagEnd); tagged {
		content = after
	}
	data, err := inlineEncoding.DecodeString(content)
	if err != nil {
		return nil, errors.Join(ErrNotFound, err)
	}
	return bytesReader{bytes.NewReader(data)}, nil
}

func (in *inlining) Remove(ctx context.Context, id string) error {
	if IsInline(id) {
		return nil
	}
	return in.Engine.Remove(ctx, id)
}

// inlineTagEnd ends the tag of an inline ID; the base64url alphabet has
// no '.'.
const inlineTagEnd = "."

// inlineID is the ID of content kept inline, tagged to be this write's.
func inlineID(content []byte) string {
	var tag [8]byte
	binary.LittleEndian.PutUint64(tag[:], rand.Uint64())
	return inlinePrefix + inlineEncoding.EncodeToString(tag[:]) + inlineTagEnd + inlineEncoding.EncodeToString(content)
}

// bytesReader is a Reader over content already in memory.
type bytesReader struct{ *bytes.Reader }

func (b bytesReader) Close() error { return nil }
