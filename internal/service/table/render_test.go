package table

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// validUTF8 is s with each byte that is not part of a valid UTF-8 sequence
// replaced by U+FFFD, as appendJSONString writes it.
func validUTF8(s string) string {
	var sb strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			sb.WriteRune(utf8.RuneError)
		} else {
			sb.WriteString(s[i : i+size])
		}
		i += size
	}
	return sb.String()
}

func checkJSONString(t *testing.T, s string) {
	t.Helper()
	out := appendJSONString([]byte("x"), s)
	var back string
	if err := json.Unmarshal(out[1:], &back); err != nil {
		t.Fatalf("%q renders as invalid JSON %s: %v", s, out[1:], err)
	}
	if want := validUTF8(s); back != want {
		t.Fatalf("%q reads back as %q, want %q", s, back, want)
	}
}

func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{"", "plain", `q"uote`, `back\slash`, "tab\tnl\ncr\r", "\x00\x1f", "é€😀", "bad\xffbyte", "\xe2\x82", `"`, "a\"b\\c\u2028"} {
		checkJSONString(t, s)
	}
}

func FuzzAppendJSONString(f *testing.F) {
	f.Add("bench entity r00042")
	f.Add("\"\\\x01é\xff")
	f.Fuzz(checkJSONString)
}
