package contentprops

import (
	"bytes"
	"net/http"
	"reflect"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/base/record"
)

func TestEmpty(t *testing.T) {
	for _, tc := range []struct {
		p    Props
		want bool
	}{
		{Props{}, true},
		{Props{MD5: []byte{}}, true},
		{Props{Type: "t"}, false},
		{Props{Encoding: "gzip"}, false},
		{Props{Language: "en"}, false},
		{Props{Disposition: "inline"}, false},
		{Props{CacheControl: "no-cache"}, false},
		{Props{MD5: make([]byte, 16)}, false},
	} {
		if got := tc.p.Empty(); got != tc.want {
			t.Errorf("%+v.Empty() = %v", tc.p, got)
		}
	}
}

// The encoding is stored in blob and file records: these bytes must not
// change.
func TestRecordEncoding(t *testing.T) {
	tests := []struct {
		p    Props
		want []byte
	}{
		{Props{}, []byte{0, 0, 0, 0, 0, 0}},
		{Props{Type: "a/b", Encoding: "gz", Language: "en", Disposition: "x", CacheControl: "c", MD5: []byte{1, 2}},
			[]byte{3, 'a', '/', 'b', 2, 'g', 'z', 2, 'e', 'n', 1, 'x', 1, 'c', 2, 1, 2}},
	}
	for _, tt := range tests {
		var e record.Encoder
		tt.p.Encode(&e)
		if !bytes.Equal(e.Bytes(), tt.want) {
			t.Errorf("%+v encodes to % x, want % x", tt.p, e.Bytes(), tt.want)
		}
		d := record.NewDecoder(tt.want)
		got := Decode(&d)
		if d.Err() != nil || !reflect.DeepEqual(got, tt.p) {
			t.Errorf("% x decodes to %+v (%v), want %+v", tt.want, got, d.Err(), tt.p)
		}
	}
}

func TestDecodeCopiesTheDigest(t *testing.T) {
	var e record.Encoder
	(&Props{MD5: []byte("0123456789abcdef")}).Encode(&e)
	stored := e.Bytes()
	d := record.NewDecoder(stored)
	p := Decode(&d)
	stored[len(stored)-1] = 'X'
	if string(p.MD5) != "0123456789abcdef" {
		t.Fatalf("decoded digest follows the store's bytes: %q", p.MD5)
	}
}

func TestDecodeMalformed(t *testing.T) {
	for _, in := range [][]byte{nil, {1, 'a'}, {0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 5, 1}} {
		d := record.NewDecoder(in)
		if Decode(&d); d.Err() == nil {
			t.Errorf("decoded % x", in)
		}
	}
}

func TestFromResponse(t *testing.T) {
	h := http.Header{"Content-Type": {"text/plain"}, "Content-Encoding": {"gzip"}, "Content-Language": {"de"},
		"Content-Disposition": {"attachment"}, "Cache-Control": {"max-age=1"}, "Content-Md5": {"MDEyMzQ1Njc4OWFiY2RlZg=="}}
	want := Props{Type: "text/plain", Encoding: "gzip", Language: "de", Disposition: "attachment",
		CacheControl: "max-age=1", MD5: []byte("0123456789abcdef")}
	if got := FromResponse(h); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v", got)
	}
	for _, md5 := range []string{"", "not base64!", "MDEyMw=="} {
		if got := FromResponse(http.Header{"Content-Md5": {md5}}); got.MD5 != nil {
			t.Errorf("Content-MD5 %q gave %x", md5, got.MD5)
		}
	}
}

func TestWriteSetHeaders(t *testing.T) {
	// An empty type was cleared: no Content-Type, and none sniffed.
	h := http.Header{}
	(&Props{MD5: []byte("0123456789abcdef")}).WriteSetHeaders(h)
	if ct, present := h["Content-Type"]; !present || ct != nil || len(h) != 1 {
		t.Fatalf("unset properties wrote %v", h)
	}
	h = http.Header{}
	(&Props{Type: "a/b", Encoding: "gzip", Language: "en", Disposition: "inline", CacheControl: "no-cache"}).WriteSetHeaders(h)
	want := http.Header{"Content-Type": {"a/b"}, "Content-Encoding": {"gzip"}, "Content-Language": {"en"},
		"Content-Disposition": {"inline"}, "Cache-Control": {"no-cache"}}
	if !reflect.DeepEqual(h, want) {
		t.Fatalf("wrote %v", h)
	}
}
