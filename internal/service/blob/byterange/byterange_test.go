package byterange

import (
	"errors"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want Range
		err  error
	}{
		{"bytes=0-0", Range{0, 0}, nil},
		{"bytes=0-499", Range{0, 499}, nil},
		{"bytes=500-", Range{500, -1}, nil},
		{" bytes=7-9 ", Range{7, 9}, nil},
		{"bytes=9223372036854775806-9223372036854775807", Range{9223372036854775806, 9223372036854775807}, nil},
		{"bytes=-500", Range{}, ErrSyntax},
		{"bytes=5-4", Range{}, ErrSyntax},
		{"bytes=0-1,3-4", Range{}, ErrSyntax},
		{"bytes=a-b", Range{}, ErrSyntax},
		{"bytes=+1-2", Range{}, ErrSyntax},
		{"bytes=1", Range{}, ErrSyntax},
		{"items=0-1", Range{}, ErrSyntax},
		{"", Range{}, ErrSyntax},
		{"bytes=99999999999999999999-", Range{}, ErrSyntax},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if !errors.Is(err, tt.err) || got != tt.want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v, %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestResolve(t *testing.T) {
	tests := []struct {
		r           Range
		size        int64
		off, length int64
		err         error
	}{
		{Range{0, 9}, 10, 0, 10, nil},
		{Range{0, 99}, 10, 0, 10, nil},
		{Range{5, -1}, 10, 5, 5, nil},
		{Range{9, 9}, 10, 9, 1, nil},
		{Range{10, -1}, 10, 0, 0, ErrUnsatisfiable},
		{Range{0, -1}, 0, 0, 0, ErrUnsatisfiable},
	}
	for _, tt := range tests {
		off, length, err := tt.r.Resolve(tt.size)
		if !errors.Is(err, tt.err) || off != tt.off || length != tt.length {
			t.Errorf("%+v.Resolve(%d) = %d, %d, %v; want %d, %d, %v", tt.r, tt.size, off, length, err, tt.off, tt.length, tt.err)
		}
	}
	if got := ContentRange(5, 5, 10); got != "bytes 5-9/10" {
		t.Errorf("ContentRange = %q", got)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"bytes=0-0", "bytes=10-", "bytes=-5", "bytes=1-0", "bytes=0-1,2-3", "", "bytes=", "bytes=00-01"} {
		f.Add(s, int64(100))
	}
	f.Fuzz(func(t *testing.T, s string, size int64) {
		r, err := Parse(s)
		if err != nil {
			return
		}
		if r.Start < 0 || (r.End >= 0 && r.End < r.Start) || r.End < -1 {
			t.Fatalf("Parse(%q) = %+v: invalid range accepted", s, r)
		}
		if size < 0 {
			return
		}
		off, length, err := r.Resolve(size)
		if err != nil {
			if r.Start < size {
				t.Fatalf("Resolve(%d) of %+v refused a satisfiable range", size, r)
			}
			return
		}
		if off != r.Start || length <= 0 || off+length > size {
			t.Fatalf("Resolve(%d) of %+v = %d, %d out of bounds", size, r, off, length)
		}
	})
}

func TestParseReadIgnoresNegativeStarts(t *testing.T) {
	for _, s := range []string{"bytes=-1-", "bytes=-22--9", "bytes=-500"} {
		if r, err := ParseRead(s); r != nil || err != nil {
			t.Errorf("ParseRead(%q) = %v, %v; want no range", s, r, err)
		}
	}
	if r, err := ParseRead("bytes=5-9"); err != nil || *r != (Range{Start: 5, End: 9}) {
		t.Errorf("ParseRead(bytes=5-9) = %v, %v", r, err)
	}
	if _, err := ParseRead("bytes=x-"); err == nil {
		t.Error("ParseRead accepted bytes=x-")
	}
}
