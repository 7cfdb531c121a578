package structured

import (
	"bytes"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

func encode(t testing.TB, content []byte, segment int64) []byte {
	t.Helper()
	var buf bytes.Buffer
	e, err := NewEncoder(&buf, int64(len(content)), segment)
	if err != nil {
		t.Fatal(err)
	}
	// Written in uneven pieces, as a response is.
	for rest := content; len(rest) > 0; {
		k := min(len(rest), 1+len(rest)%7)
		if _, err := e.Write(rest[:k]); err != nil {
			t.Fatal(err)
		}
		rest = rest[k:]
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if int64(buf.Len()) != EncodedLength(int64(len(content)), segment) {
		t.Fatalf("%d bytes encoded, EncodedLength says %d", buf.Len(), EncodedLength(int64(len(content)), segment))
	}
	return buf.Bytes()
}

func decode(message []byte, contentLen int64) ([]byte, error) {
	return io.ReadAll(NewDecoder(bytes.NewReader(message), int64(len(message)), contentLen))
}

func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 15, 16, 17, 53} {
		content := make([]byte, n)
		for i := range content {
			content[i] = byte(rng.Uint32())
		}
		got, err := decode(encode(t, content, 16), int64(n))
		if err != nil || !bytes.Equal(got, content) {
			t.Fatalf("%d bytes: %v, content equal %v", n, err, bytes.Equal(got, content))
		}
	}
}

func TestDecoderRefuses(t *testing.T) {
	content := []byte("the quick brown fox jumps over the lazy dog")
	good := encode(t, content, 16)
	mutate := func(f func(m []byte) []byte) []byte { return f(bytes.Clone(good)) }
	cases := []struct {
		name       string
		message    []byte
		contentLen int64
		code       string
	}{
		{"segment byte flipped", mutate(func(m []byte) []byte { m[headerSize+segmentHeaderSize+3] ^= 1; return m }), 43, azerr.Crc64Mismatch},
		{"message trailer flipped", mutate(func(m []byte) []byte { m[len(m)-1] ^= 1; return m }), 43, azerr.Crc64Mismatch},
		{"version 2", mutate(func(m []byte) []byte { m[0] = 2; return m }), 43, azerr.InvalidInput},
		{"no CRC flag", mutate(func(m []byte) []byte { m[9] = 0; return m }), 43, azerr.InvalidInput},
		{"segments out of order", mutate(func(m []byte) []byte { m[headerSize] = 2; return m }), 43, azerr.InvalidInput},
		{"truncated", good[:len(good)-3], 43, azerr.InvalidInput},
		{"trailing data", append(bytes.Clone(good), 0), 43, azerr.InvalidInput},
		{"content length differs", good, 42, azerr.InvalidInput},
		{"zero segments", mutate(func(m []byte) []byte { binary.LittleEndian.PutUint16(m[11:13], 0); return m }), 43, azerr.InvalidInput},
	}
	for _, c := range cases {
		_, err := decode(c.message, c.contentLen)
		if !azerr.Is(err, c.code) {
			t.Errorf("%s: %v, want %s", c.name, err, c.code)
		}
	}
}

func TestAcceptUpload(t *testing.T) {
	content := []byte("hello, structured world")
	message := encode(t, content, 8)
	req := func(h map[string]string) *http.Request {
		r, _ := http.NewRequest("PUT", "http://x/c/b", bytes.NewReader(message))
		for k, v := range h {
			r.Header.Set(k, v)
		}
		return r
	}
	r := req(map[string]string{BodyHeader: CRC64Body, ContentLengthHeader: strconv.Itoa(len(content))})
	if on, err := AcceptUpload(r); !on || err != nil {
		t.Fatalf("AcceptUpload: %v %v", on, err)
	}
	if got, err := io.ReadAll(r.Body); err != nil || !bytes.Equal(got, content) || r.ContentLength != int64(len(content)) {
		t.Fatalf("body %q %v, length %d", got, err, r.ContentLength)
	}
	if on, err := AcceptUpload(req(nil)); on || err != nil {
		t.Errorf("plain body: %v %v", on, err)
	}
	if _, err := AcceptUpload(req(map[string]string{BodyHeader: "XSM/2.0"})); !azerr.Is(err, azerr.InvalidHeaderValue) {
		t.Errorf("unknown type: %v", err)
	}
	if _, err := AcceptUpload(req(map[string]string{BodyHeader: CRC64Body})); !azerr.Is(err, azerr.MissingRequiredHeader) {
		t.Errorf("no content length: %v", err)
	}
}

func FuzzDecoder(f *testing.F) {
	f.Add(encode(f, []byte("seed content"), 4), int64(12))
	f.Fuzz(func(t *testing.T, message []byte, contentLen int64) {
		if contentLen < 0 {
			return
		}
		got, err := decode(message, contentLen)
		if err == nil && int64(len(got)) != contentLen {
			t.Fatalf("decoded %d bytes, declared %d", len(got), contentLen)
		}
	})
}
