package queue

import (
	"net/http"
	"strings"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/azerr"
)

func TestCheckName(t *testing.T) {
	cases := []struct {
		name string
		ok   bool
	}{
		{"abc", true},
		{"my-queue-3", true},
		{"0queue", true},
		{strings.Repeat("a", 63), true},
		{"ab", false},
		{strings.Repeat("a", 64), false},
		{"MyQueue", false},
		{"my queue", false},
		{"-nogood", false},
		{"x-", false},
		{"abc-", false},
		{"a--b", false},
		{"bad(name)", false},
		{"my_queue", false},
		{"queue.name", false},
		{"", false},
	}
	for _, c := range cases {
		err := checkName(c.name)
		if c.ok != (err == nil) {
			t.Errorf("checkName(%q) = %v, want ok=%v", c.name, err, c.ok)
		}
		if err != nil && !azerr.Is(err, azerr.InvalidResourceName) {
			t.Errorf("checkName(%q) code = %v, want InvalidResourceName", c.name, err)
		}
	}
}

func TestParseMetadata(t *testing.T) {
	cases := []struct {
		name    string
		headers map[string]string
		want    metadata
		code    string
	}{
		{"none", map[string]string{"Content-Type": "x"}, nil, ""},
		{"sorted and lower-cased", map[string]string{"x-ms-meta-Zeta": "1", "X-Ms-Meta-alpha": "2"},
			metadata{{"alpha", "2"}, {"zeta", "1"}}, ""},
		{"underscore identifier", map[string]string{"x-ms-meta-_a1": "v"}, metadata{{"_a1", "v"}}, ""},
		{"empty value kept", map[string]string{"x-ms-meta-a": ""}, metadata{{"a", ""}}, ""},
		{"digit first", map[string]string{"x-ms-meta-1a": "v"}, nil, azerr.InvalidMetadata},
		{"hyphen", map[string]string{"x-ms-meta-a-b": "v"}, nil, azerr.InvalidMetadata},
		{"empty name", map[string]string{"x-ms-meta-": "v"}, nil, azerr.EmptyMetadataKey},
		{"too large", map[string]string{"x-ms-meta-big": strings.Repeat("v", 8190)}, nil, azerr.MetadataTooLarge},
		{"exactly 8 KiB", map[string]string{"x-ms-meta-big": strings.Repeat("v", 8189)},
			metadata{{"big", strings.Repeat("v", 8189)}}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range c.headers {
				h[k] = []string{v}
			}
			got, err := parseMetadata(h)
			if c.code != "" {
				if !azerr.Is(err, c.code) {
					t.Fatalf("err = %v, want %s", err, c.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !got.equal(c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
		})
	}
}

func TestMetadataEqual(t *testing.T) {
	a := metadata{{"a", "1"}}
	if !a.equal(metadata{{"a", "1"}}) || a.equal(metadata{{"a", "2"}}) || a.equal(nil) || !metadata(nil).equal(metadata{}) {
		t.Fatal("metadata.equal is wrong")
	}
}
