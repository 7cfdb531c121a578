package xmlw

import (
	"bytes"
	"encoding/xml"
	"net/http/httptest"
	"strconv"
	"testing"
)

func TestAppendEscaping(t *testing.T) {
	cases := []struct {
		in                      string
		standard, message, keep string
	}{
		{"plain", "plain", "plain", "plain"},
		{"a<b>&c", "a&lt;b&gt;&amp;c", "a&lt;b&gt;&amp;c", "a&lt;b&gt;&amp;c"},
		{`"q" 'a'`, "&#34;q&#34; &#39;a&#39;", `"q" 'a'`, "&quot;q&quot; &apos;a&apos;"},
		{"l1\nl2\r\tx", "l1&#xA;l2&#xD;&#x9;x", "l1\nl2&#xD;\tx", "l1\nl2\r\tx"},
		{"é€😀", "é€😀", "é€😀", "é€😀"},
		{"bad\xffutf8", "bad\uFFFDutf8", "bad\xffutf8", "bad\xffutf8"},
		{"\x01\uFFFE", "\uFFFD\uFFFD", "\x01\uFFFE", "\x01\uFFFE"},
		{"", "", "", ""},
	}
	for _, c := range cases {
		for _, m := range []struct {
			esc  Escaping
			want string
		}{{Standard, c.standard}, {MessageText, c.message}, {KeepNewlines, c.keep}} {
			if got := string(Append([]byte(">"), c.in, m.esc)); got != ">"+m.want {
				t.Errorf("Append(%q, %d) = %q, want %q", c.in, m.esc, got, ">"+m.want)
			}
		}
	}
}

func TestWriterDocument(t *testing.T) {
	w := New(Decl, Standard)
	w.OpenStart("EnumerationResults")
	w.Attr("ServiceEndpoint", `http://h/"a"`)
	w.End()
	w.Open("Item", "Kind", "<x>", "Id", "1")
	w.Elem("Name", "a&b")
	w.Int("Size", -42)
	w.Empty("Marker")
	_, _ = w.WriteString("<Raw/>")
	_, _ = w.Write([]byte("<Raw2/>"))
	w.Close("Item")
	w.Close("EnumerationResults")
	want := `<?xml version="1.0" encoding="UTF-8"?><EnumerationResults ServiceEndpoint="http://h/&#34;a&#34;">` +
		`<Item Kind="&lt;x&gt;" Id="1"><Name>a&amp;b</Name><Size>-42</Size><Marker /><Raw/><Raw2/></Item></EnumerationResults>`
	if got := string(w.Bytes()); got != want {
		t.Fatalf("document:\n got %s\nwant %s", got, want)
	}
	if w.Len() != len(want) {
		t.Fatalf("Len %d, want %d", w.Len(), len(want))
	}
	if _, err := xml.NewDecoder(bytes.NewReader(w.Bytes())).Token(); err != nil {
		t.Fatalf("document does not parse: %v", err)
	}
}

func TestOverAppends(t *testing.T) {
	w := Over([]byte("prefix:"), MessageText)
	w.Elem("MessageText", "a\r\n<b>")
	w.TextBytes([]byte("&\r"))
	if got := string(w.Bytes()); got != "prefix:<MessageText>a&#xD;\n&lt;b&gt;</MessageText>&amp;&#xD;" {
		t.Fatalf("Over: %q", got)
	}
	if got := string(New(DeclLine, Standard).Bytes()); got != xml.Header {
		t.Fatalf("DeclLine %q is not xml.Header", got)
	}
}

func TestSend(t *testing.T) {
	w := New(DeclLower, KeepNewlines)
	w.Elem("Error", "x")
	rec := httptest.NewRecorder()
	if err := w.Send(rec, 409); err != nil {
		t.Fatal(err)
	}
	body := `<?xml version="1.0" encoding="utf-8"?><Error>x</Error>`
	if rec.Code != 409 || rec.Header().Get("Content-Type") != "application/xml" ||
		rec.Header().Get("Content-Length") != strconv.Itoa(len(body)) || rec.Body.String() != body {
		t.Fatalf("Send: %d %v %q", rec.Code, rec.Header(), rec.Body.String())
	}
}

// FuzzStandardIsEscapeText: the fast path of Standard never differs from
// encoding/xml's EscapeText, which the services' golden bodies were made
// with.
func FuzzStandardIsEscapeText(f *testing.F) {
	for _, s := range []string{"plain", "a<b", "\n\r\t", "é", "\xff", "\uFFFE", `"'`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want bytes.Buffer
		_ = xml.EscapeText(&want, []byte(s))
		if got := Append(nil, s, Standard); !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("Append(%q) = %q, EscapeText = %q", s, got, want.Bytes())
		}
	})
}
