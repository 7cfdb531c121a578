package blob

import (
	"testing"

	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

func TestParsePageRange(t *testing.T) {
	cases := []struct {
		raw  string
		want blobdata.PageRange
		ok   bool
	}{
		{"bytes=0-511", blobdata.PageRange{Start: 0, End: 511}, true},
		{"bytes=512-4095", blobdata.PageRange{Start: 512, End: 4095}, true},
		{"bytes=0-", blobdata.PageRange{}, false},
		{"bytes=1-512", blobdata.PageRange{}, false},
		{"bytes=0-512", blobdata.PageRange{}, false},
		{"bytes=512-0", blobdata.PageRange{}, false},
		{"0-511", blobdata.PageRange{}, false},
		{"bytes=-512", blobdata.PageRange{}, false},
		{"", blobdata.PageRange{}, false},
	}
	for _, c := range cases {
		got, err := parsePageRange(c.raw)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("%q: got %v, %v", c.raw, got, err)
		}
	}
}

func FuzzParsePageRange(f *testing.F) {
	for _, s := range []string{"bytes=0-511", "bytes=512-1023", "bytes=1-2", "bytes=0-", "bytes=9223372036854775296-9223372036854775807", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		p, err := parsePageRange(raw)
		if err != nil {
			return
		}
		if p.Start < 0 || p.End < p.Start || p.Start%blobdata.PageSize != 0 || (p.End+1)%blobdata.PageSize != 0 || p.Length()%blobdata.PageSize != 0 {
			t.Fatalf("%q parsed to invalid %+v", raw, p)
		}
	})
}
