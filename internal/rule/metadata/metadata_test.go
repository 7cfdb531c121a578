package metadata

import (
	"bytes"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/base/record"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

func TestParse(t *testing.T) {
	cases := []struct {
		name    string
		headers http.Header
		want    Set
		code    string
	}{
		{"none", http.Header{"Content-Type": {"x"}}, nil, ""},
		// A name written after a lower-case prefix keeps its case (the
		// listener gives names back that way); Go's canonical form has lost
		// it and is lower-cased. Sorted without regard to case.
		{"case kept as sent, sorted without case", http.Header{"x-ms-meta-Zeta": {"1"}, "X-Ms-Meta-Alpha": {"2"}, "x-ms-meta-beta": {"3"}},
			Set{{"alpha", "2"}, {"beta", "3"}, {"Zeta", "1"}}, ""},
		{"repeated header joined with commas", http.Header{"X-Ms-Meta-Alpha": {"1", "1b"}, "X-Ms-Meta-Beta": {"2"}},
			Set{{"alpha", "1,1b"}, {"beta", "2"}}, ""},
		{"underscore identifier", http.Header{"x-ms-meta-_a1": {"v"}}, Set{{"_a1", "v"}}, ""},
		{"empty value kept", http.Header{"x-ms-meta-a": {""}}, Set{{"a", ""}}, ""},
		{"prefix alone is not metadata", http.Header{"x-ms-met": {"v"}}, nil, ""},
		{"digit first", http.Header{"x-ms-meta-1a": {"v"}}, nil, azerr.InvalidMetadata},
		{"hyphen", http.Header{"X-Ms-Meta-A-B": {"v"}}, nil, azerr.InvalidMetadata},
		{"dot", http.Header{"x-ms-meta-a.b": {"v"}}, nil, azerr.InvalidMetadata},
		{"non-ASCII letter", http.Header{"x-ms-meta-é": {"v"}}, nil, azerr.InvalidMetadata},
		{"empty name", http.Header{"X-Ms-Meta-": {"v"}}, nil, azerr.EmptyMetadataKey},
		{"too large", http.Header{"x-ms-meta-big": {strings.Repeat("v", 8190)}}, nil, azerr.MetadataTooLarge},
		{"too large over several names", http.Header{"x-ms-meta-a": {strings.Repeat("v", 4096)},
			"x-ms-meta-b": {strings.Repeat("v", 4095)}}, nil, azerr.MetadataTooLarge},
		{"exactly 8 KiB", http.Header{"x-ms-meta-big": {strings.Repeat("v", 8189)}},
			Set{{"big", strings.Repeat("v", 8189)}}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Parse(c.headers)
			if c.code != "" {
				if !azerr.Is(err, c.code) || got != nil {
					t.Fatalf("got %v, %v; want %s", got, err, c.code)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got %v, %v; want %v", got, err, c.want)
			}
		})
	}
}

// The service names the offending key in the error's MetadataName element.
func TestParseNamesTheInvalidKey(t *testing.T) {
	_, err := Parse(http.Header{"X-Ms-Meta-9Lives": {"x"}})
	e, ok := azerr.As(err)
	want := []azerr.Detail{{Name: "MetadataName", Value: "9lives"}}
	if !ok || e.Code != azerr.InvalidMetadata || !reflect.DeepEqual(e.Details, want) {
		t.Fatalf("error %#v", err)
	}
}

func TestIsIdentifier(t *testing.T) {
	for s, want := range map[string]bool{"a": true, "_": true, "_under_score9": true, "Az09": true,
		"": false, "9x": false, "a-b": false, "a b": false, "ä": false} {
		if got := isIdentifier(s); got != want {
			t.Errorf("isIdentifier(%q) = %v", s, got)
		}
	}
}

func TestFromResponse(t *testing.T) {
	h := http.Header{"X-Ms-Meta-B": {"2"}, "X-Ms-Meta-A-B": {"not checked"}, "X-Ms-Meta-": {"skipped"},
		"X-Ms-Meta-Rep": {"1", "2"}, "Etag": {"x"}}
	want := Set{{"a-b", "not checked"}, {"b", "2"}, {"rep", "1,2"}}
	if got := FromResponse(h); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if got := FromResponse(http.Header{}); got != nil {
		t.Fatalf("no metadata gave %v", got)
	}
}

func TestWriteHeadersKeepsStoredCase(t *testing.T) {
	h := http.Header{}
	Set{{"alpha", "1"}, {"b_c", ""}}.WriteHeaders(h)
	want := http.Header{"x-ms-meta-alpha": {"1"}, "x-ms-meta-b_c": {""}}
	if !reflect.DeepEqual(h, want) {
		t.Fatalf("headers %v", h)
	}
}

func TestEqual(t *testing.T) {
	a := Set{{"a", "1"}}
	if !a.Equal(Set{{"a", "1"}}) || a.Equal(Set{{"a", "2"}}) || a.Equal(Set{{"b", "1"}}) || a.Equal(nil) ||
		!Set(nil).Equal(Set{}) {
		t.Fatal("Equal is wrong")
	}
}

// The record encoding is stored by blob and file records: its bytes must
// not change.
func TestRecordEncoding(t *testing.T) {
	var e record.Encoder
	Set{{"ab", "1"}, {"c", ""}}.Encode(&e)
	want := []byte{2, 2, 'a', 'b', 1, '1', 1, 'c', 0}
	if !bytes.Equal(e.Bytes(), want) {
		t.Fatalf("encoded % x, want % x", e.Bytes(), want)
	}
	d := record.NewDecoder(want)
	if got := Decode(&d); d.Err() != nil || !reflect.DeepEqual(got, Set{{"ab", "1"}, {"c", ""}}) {
		t.Fatalf("decoded %v (%v)", got, d.Err())
	}
	for _, bad := range [][]byte{nil, {5, 1, 'a'}, {1, 1, 'a'}, {1, 9, 'a', 0}} {
		d := record.NewDecoder(bad)
		if Decode(&d); d.Err() == nil {
			t.Errorf("decoded % x", bad)
		}
	}
}

// Queue records store metadata as JSON arrays of [name, value] pairs; the
// shape must stay readable both ways.
func TestJSONShape(t *testing.T) {
	type rec struct {
		Meta Set `json:"meta,omitempty"`
	}
	for _, tc := range []struct {
		in   rec
		want string
	}{
		{rec{Set{{"alpha", "1"}, {"beta", ""}}}, `{"meta":[["alpha","1"],["beta",""]]}`},
		{rec{nil}, `{}`},
		{rec{Set{}}, `{}`},
	} {
		b, err := json.Marshal(tc.in)
		if err != nil || string(b) != tc.want {
			t.Fatalf("marshal %v = %s (%v), want %s", tc.in, b, err, tc.want)
		}
		var back rec
		if err := json.Unmarshal(b, &back); err != nil || !back.Meta.Equal(tc.in.Meta) {
			t.Fatalf("unmarshal %s = %v (%v)", b, back, err)
		}
	}
	if b, _ := json.Marshal(Set(nil)); string(b) != "null" {
		t.Fatalf("nil set marshals to %s", b)
	}
	var s Set = Set{{"x", "y"}}
	if err := json.Unmarshal([]byte("null"), &s); err != nil || s != nil {
		t.Fatalf("null gave %v (%v)", s, err)
	}
	if err := json.Unmarshal([]byte(`[["a"]]`), &s); err != nil || !s.Equal(Set{{"a", ""}}) {
		t.Fatalf("a short pair gave %v (%v)", s, err)
	}
	if err := json.Unmarshal([]byte(`{"a":"b"}`), &s); err == nil {
		t.Fatal("an object was accepted")
	}
}

// FuzzParse checks that whatever headers come in, Parse either refuses
// them with one of its three errors or returns a sorted set of
// identifiers within the size limit.
func FuzzParse(f *testing.F) {
	f.Add("x-ms-meta-a", "1", "X-Ms-Meta-B", "2")
	f.Add("x-ms-meta-", "v", "x-ms-meta-9", "")
	f.Add("x-ms-meta-big", strings.Repeat("v", 9000), "content-type", "x")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		got, err := Parse(http.Header{k1: {v1}, k2: {v2}})
		if err != nil {
			if !azerr.Is(err, azerr.InvalidMetadata) && !azerr.Is(err, azerr.EmptyMetadataKey) &&
				!azerr.Is(err, azerr.MetadataTooLarge) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		total := 0
		for i, p := range got {
			if !isIdentifier(p.Name) || p.Name != strings.ToLower(p.Name) {
				t.Fatalf("accepted name %q", p.Name)
			}
			if i > 0 && got[i-1].Name >= p.Name {
				t.Fatalf("not sorted: %v", got)
			}
			total += len(p.Name) + len(p.Value)
		}
		if total > MaxSize {
			t.Fatalf("accepted %d bytes", total)
		}
	})
}

// Names are compared without case, values with it (Create Queue's "same
// metadata" check).
func TestEqualIgnoresNameCase(t *testing.T) {
	a := Set{{"Color", "red"}}
	if !a.Equal(Set{{"color", "red"}}) || a.Equal(Set{{"Color", "Red"}}) || a.Equal(nil) {
		t.Fatal("Equal compares names with case or values without it")
	}
}
