package blocklist

import (
	"encoding/base64"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func TestParse(t *testing.T) {
	body := xml.Header + "<BlockList>\n  <Committed>" + b64("aaaa") + "</Committed>\n" +
		"  <Uncommitted>" + b64("bbbb") + "</Uncommitted>\n  <Latest> " + b64("cccc") + " </Latest>\n</BlockList>\n"
	got, err := Parse(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{{Committed, "aaaa"}, {Uncommitted, "bbbb"}, {Latest, "cccc"}}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("entry %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestParseErrors(t *testing.T) {
	long := b64(strings.Repeat("x", 65))
	tests := []struct {
		name, body, code string
	}{
		{"not xml", "hello", azerr.InvalidXmlDocument},
		{"wrong root", "<Blocks><Latest>" + b64("a") + "</Latest></Blocks>", azerr.InvalidXmlDocument},
		{"unknown element", "<BlockList><Other>" + b64("a") + "</Other></BlockList>", azerr.InvalidXmlDocument},
		{"unclosed", "<BlockList><Latest>" + b64("a") + "</Latest>", azerr.InvalidXmlDocument},
		{"trailing element", "<BlockList></BlockList><x/>", azerr.InvalidXmlDocument},
		{"bad base64", "<BlockList><Latest>%%%</Latest></BlockList>", azerr.InvalidBlockList},
		{"empty id", "<BlockList><Latest></Latest></BlockList>", azerr.InvalidBlockList},
		{"too long id", "<BlockList><Latest>" + long + "</Latest></BlockList>", azerr.InvalidBlockList},
		{"mixed lengths", "<BlockList><Latest>" + b64("a") + "</Latest><Latest>" + b64("bb") + "</Latest></BlockList>", azerr.InvalidBlockList},
	}
	for _, tt := range tests {
		_, err := Parse(strings.NewReader(tt.body))
		if !azerr.Is(err, tt.code) {
			t.Errorf("%s: err = %v, want %s", tt.name, err, tt.code)
		}
	}
}

func TestParseEmptyAndTooLong(t *testing.T) {
	got, err := Parse(strings.NewReader("<BlockList/>"))
	if err != nil || len(got) != 0 {
		t.Fatalf("empty list: %v, %v", got, err)
	}
	var sb strings.Builder
	sb.WriteString("<BlockList>")
	id := b64("12345")
	for range MaxBlocks + 1 {
		sb.WriteString("<Latest>" + id + "</Latest>")
	}
	sb.WriteString("</BlockList>")
	if _, err := Parse(strings.NewReader(sb.String())); !azerr.Is(err, azerr.BlockListTooLong) {
		t.Fatalf("50,001 entries: %v", err)
	}
}

func TestDecodeID(t *testing.T) {
	if id, err := DecodeID(b64("block-1")); err != nil || id != "block-1" {
		t.Fatalf("DecodeID = %q, %v", id, err)
	}
	for _, bad := range []string{"", "a", "!!!!", b64(strings.Repeat("y", 65))} {
		if _, err := DecodeID(bad); err == nil {
			t.Errorf("DecodeID(%q) accepted", bad)
		}
	}
	if EncodeID("block-1") != b64("block-1") {
		t.Error("EncodeID does not round-trip")
	}
}

func TestWrite(t *testing.T) {
	buf := Write([]Block{{"a", 3}}, nil, true, true)
	want := xml.Header + "<BlockList><CommittedBlocks><Block><Name>" + b64("a") +
		"</Name><Size>3</Size></Block></CommittedBlocks><UncommittedBlocks></UncommittedBlocks></BlockList>"
	if string(buf.Bytes()) != want {
		t.Fatalf("got %s", buf.Bytes())
	}
	buf = Write(nil, []Block{{"b", 1}}, false, true)
	if strings.Contains(string(buf.Bytes()), "CommittedBlocks><") && strings.Contains(string(buf.Bytes()), "<CommittedBlocks>") {
		t.Fatalf("committed list rendered: %s", buf.Bytes())
	}
}

func FuzzParse(f *testing.F) {
	f.Add("<BlockList><Latest>" + b64("a") + "</Latest></BlockList>")
	f.Add(xml.Header + "<BlockList><Committed>" + b64("ab") + "</Committed><Uncommitted>" + b64("cd") + "</Uncommitted></BlockList>")
	f.Add("<BlockList/>")
	f.Add("<BlockList><Latest>%%</Latest></BlockList>")
	f.Add("<BlockList><!-- c --><Latest>" + b64("z") + "</Latest></BlockList>")
	f.Add("<")
	f.Fuzz(func(t *testing.T, body string) {
		entries, err := Parse(strings.NewReader(body))
		if err != nil {
			if _, ok := azerr.As(err); !ok {
				t.Fatalf("non-Azure error %v", err)
			}
			return
		}
		if len(entries) > MaxBlocks {
			t.Fatalf("%d entries accepted", len(entries))
		}
		for _, e := range entries {
			if e.Kind < Committed || e.Kind > Latest || len(e.ID) == 0 || len(e.ID) > MaxIDLen || len(e.ID) != len(entries[0].ID) {
				t.Fatalf("invalid entry accepted: %+v", e)
			}
		}
	})
}
