package guid

import (
	"regexp"
	"sync"
	"testing"
)

var canonical = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestNewIsVersion4Canonical(t *testing.T) {
	for i := 0; i < 1000; i++ {
		if id := New(); !canonical.MatchString(id) {
			t.Fatalf("New() = %q, not a canonical version 4 GUID", id)
		}
		if id := Format(NewRaw()); !canonical.MatchString(id) {
			t.Fatalf("Format(NewRaw()) = %q, not a canonical version 4 GUID", id)
		}
	}
}

func TestFormat(t *testing.T) {
	cases := []struct {
		raw  [Size]byte
		want string
	}{
		{[Size]byte{}, "00000000-0000-0000-0000-000000000000"},
		{[Size]byte{0x0f, 0x8f, 0xad, 0x5b, 0xd9, 0xcb, 0x46, 0x9f, 0xa1, 0x65, 0x70, 0x86, 0x77, 0x28, 0x95, 0x0e},
			"0f8fad5b-d9cb-469f-a165-70867728950e"},
		{[Size]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
			"ffffffff-ffff-ffff-ffff-ffffffffffff"},
	}
	for _, c := range cases {
		if got := Format(c.raw); got != c.want {
			t.Errorf("Format(%x) = %q, want %q", c.raw, got, c.want)
		}
	}
}

func TestNewUniqueAcrossGoroutines(t *testing.T) {
	const workers, each = 8, 2000
	var mu sync.Mutex
	seen := make(map[string]bool, workers*each)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := make([]string, each)
			for i := range local {
				local[i] = New()
			}
			mu.Lock()
			defer mu.Unlock()
			for _, id := range local {
				if seen[id] {
					t.Errorf("GUID %s drawn twice", id)
				}
				seen[id] = true
			}
		}()
	}
	wg.Wait()
}
