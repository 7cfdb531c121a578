package recentdelete

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

func TestRecentWithinTheWindowOnly(t *testing.T) {
	n := New()
	t0 := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	n.Deleted("acct", "c", t0)
	for _, tc := range []struct {
		account, name string
		at            time.Time
		recent        bool
	}{
		{"acct", "c", t0, true},
		{"acct", "c", t0.Add(Window - time.Millisecond), true},
		{"other", "c", t0, false},
		{"acct", "d", t0, false},
		{"acct", "c", t0.Add(Window), false},
		{"acct", "c", t0, false}, // expired names are forgotten
	} {
		if got := n.Recent(tc.account, tc.name, tc.at); got != tc.recent {
			t.Errorf("Recent(%s, %s, +%v) = %v", tc.account, tc.name, tc.at.Sub(t0), got)
		}
	}
	n.Deleted("acct", "c", t0)
	n.Created("acct", "c")
	if n.Recent("acct", "c", t0) {
		t.Error("a created name is still recently deleted")
	}
}

func TestBoundedUnderManyDeletes(t *testing.T) {
	n := New()
	now := time.Now()
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 3*maxNames; i++ {
				name := fmt.Sprintf("%d-%d", g, i)
				n.Deleted("acct", name, now)
				n.Recent("acct", name, now)
			}
		}(g)
	}
	wg.Wait()
	if len(n.deleted) > maxNames {
		t.Fatalf("%d names remembered, bound %d", len(n.deleted), maxNames)
	}
	n.Deleted("acct", "last", now)
	if !n.Recent("acct", "last", now) {
		t.Fatal("the newest name was forgotten")
	}
}
