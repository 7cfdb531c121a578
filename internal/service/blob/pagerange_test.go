package blob

import "testing"

func TestParsePageRange(t *testing.T) {
	cases := []struct {
		raw  string
		want pageRange
		ok   bool
	}{
		{"bytes=0-511", pageRange{0, 511}, true},
		{"bytes=512-4095", pageRange{512, 4095}, true},
		{"bytes=0-", pageRange{}, false},
		{"bytes=1-512", pageRange{}, false},
		{"bytes=0-512", pageRange{}, false},
		{"bytes=512-0", pageRange{}, false},
		{"0-511", pageRange{}, false},
		{"bytes=-512", pageRange{}, false},
		{"", pageRange{}, false},
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
		if p.Start < 0 || p.End < p.Start || p.Start%pageSize != 0 || (p.End+1)%pageSize != 0 || p.length()%pageSize != 0 {
			t.Fatalf("%q parsed to invalid %+v", raw, p)
		}
	})
}
