package smb_test

import (
	"bytes"
	"fmt"
	"sync"
	"testing"

	smb2 "github.com/hirochachacha/go-smb2"
)

// TestConcurrentSessions: sessions of every dialect, each on its own
// connection, write, read back and list at once.
func TestConcurrentSessions(t *testing.T) {
	in, _ := startWithShare(t)
	const n = 8
	shares := make([]*smb2.Share, n)
	for i := range shares {
		shares[i] = mustDial(t, in, []uint16{0x0210, 0x0300, 0x0302, 0x0311}[i%4])
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4*n)
	for i, fs := range shares {
		wg.Go(func() {
			data := bytes.Repeat([]byte{byte('a' + i)}, 70000+i)
			name := fmt.Sprintf("own-%d.txt", i)
			for round := 0; round < 3; round++ {
				if err := fs.WriteFile(name, data, 0o644); err != nil {
					errs <- err
					return
				}
				got, err := fs.ReadFile(name)
				if err != nil || !bytes.Equal(got, data) {
					errs <- fmt.Errorf("session %d read back %d bytes: %v", i, len(got), err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	infos, err := shares[0].ReadDir("")
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) != n {
		t.Fatalf("%d entries, want %d", len(infos), n)
	}
}
