package svcprops

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/engine/store/memory"
)

func corsRuleFor(origin string) Properties {
	return Properties{Cors: &CorsRules{Rules: []CorsRule{{AllowedOrigins: origin, AllowedMethods: "GET",
		AllowedHeaders: "*", ExposedHeaders: "*", MaxAgeInSeconds: 10}}}}
}

func origins(t *testing.T, c *Cache) string {
	t.Helper()
	p, err := c.Get(context.Background(), "acct", "blob")
	if err != nil {
		t.Fatal(err)
	}
	if p.Cors == nil || len(p.Cors.Rules) == 0 {
		return ""
	}
	return p.Cors.Rules[0].AllowedOrigins
}

// A Set through this process is seen by the next read at once.
func TestCacheSeesLocalSetAtOnce(t *testing.T) {
	st := memory.New()
	c := NewCache(st, time.Hour)
	if got := origins(t, c); got != "" {
		t.Fatalf("defaults have rules: %q", got)
	}
	for _, origin := range []string{"http://a.example", "http://b.example"} {
		if err := Set(context.Background(), st, "acct", "blob", corsRuleFor(origin)); err != nil {
			t.Fatal(err)
		}
		if got := origins(t, c); got != origin {
			t.Fatalf("after Set(%s) the cache answered %q", origin, got)
		}
	}
}

// A change this process did not make (another node's) is seen once the
// cached copy outlives its lifetime, and not before.
func TestCacheSeesOtherWritersWithinLifetime(t *testing.T) {
	st := memory.New()
	c := NewCache(st, 50*time.Millisecond)
	_ = origins(t, c)
	err := st.Update(context.Background(), func(tx store.Tx) error {
		return Save(tx, "acct", "blob", corsRuleFor("http://other-node.example"))
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := origins(t, c); got != "" {
		t.Fatalf("a fresh copy was re-read before its lifetime ended: %q", got)
	}
	time.Sleep(60 * time.Millisecond)
	if got := origins(t, c); got != "http://other-node.example" {
		t.Fatalf("after the lifetime the cache answered %q", got)
	}
}

// Forget (an admin reset) disowns every cached copy.
func TestCacheForget(t *testing.T) {
	st := memory.New()
	c := NewCache(st, time.Hour)
	if err := Set(context.Background(), st, "acct", "blob", corsRuleFor("http://a.example")); err != nil {
		t.Fatal(err)
	}
	_ = origins(t, c)
	err := st.Update(context.Background(), func(tx store.Tx) error { return tx.Delete(key("acct", "blob")) })
	if err != nil {
		t.Fatal(err)
	}
	Forget()
	if got := origins(t, c); got != "" {
		t.Fatalf("after Forget the cache answered %q", got)
	}
}

// Many readers racing writers through this process: once a Set has
// returned, no read that starts afterwards answers an older value.
func TestCacheRacingSets(t *testing.T) {
	st := memory.New()
	c := NewCache(st, time.Hour)
	origin := func(i int) string { return "http://" + string(rune('a'+i%26)) + ".example" }
	var done atomic.Bool
	var wg sync.WaitGroup
	for r := 0; r < 8; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !done.Load() {
				if _, err := c.Get(context.Background(), "acct", "blob"); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	for i := 0; i < 200; i++ {
		if err := Set(context.Background(), st, "acct", "blob", corsRuleFor(origin(i))); err != nil {
			t.Fatal(err)
		}
		if got := origins(t, c); got != origin(i) {
			t.Fatalf("after Set %d the cache answered %q, want %q", i, got, origin(i))
		}
	}
	done.Store(true)
	wg.Wait()
}
