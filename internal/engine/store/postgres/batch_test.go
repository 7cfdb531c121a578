package postgres

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/engine/store/memory"
)

// A step of a scripted Update; each kind is one use of the Tx, or a pair
// of writes to one key that a batching engine must apply in order.
type stepKind int

const (
	stepPut stepKind = iota
	stepDelete
	stepPutThenDelete
	stepDeleteThenPut
	stepOverwrite
	stepGet
	stepScan
)

type step struct {
	kind          stepKind
	key           []byte
	value, value2 []byte
}

// batchKeys is the key space of the script: small enough that most keys
// are written many times, across the engine's flushes.
const batchKeys = 4000

func batchKey(i int) []byte { return store.NewKey(store.SpaceBlob).Uint(uint64(i)).Bytes() }

// batchValue is an empty value, a short one, or now and then a large one,
// so that the writes fill the pending buffer by size as well as by count.
func batchValue(rng *rand.Rand, tag int) []byte {
	switch n := rng.IntN(100); {
	case n == 0:
		return bytes.Repeat([]byte{byte(tag)}, 48<<10)
	case n < 5:
		return []byte{}
	default:
		return fmt.Appendf(nil, "v%d-%d", tag, rng.IntN(1<<20))
	}
}

// batchScript is 25,000 steps of mixed writes, with reads of single keys
// and of ranges in between.
func batchScript() []step {
	rng := rand.New(rand.NewPCG(28, 32))
	steps := make([]step, 25000)
	for i := range steps {
		s := step{key: batchKey(rng.IntN(batchKeys))}
		switch n := rng.IntN(100); {
		case n < 40:
			s.kind = stepPut
		case n < 60:
			s.kind = stepDelete
		case n < 67:
			s.kind = stepPutThenDelete
		case n < 74:
			s.kind = stepDeleteThenPut
		case n < 81:
			s.kind = stepOverwrite
		case n < 99:
			s.kind = stepGet
		default:
			s.kind = stepScan
		}
		s.value, s.value2 = batchValue(rng, i), batchValue(rng, i+1)
		steps[i] = s
	}
	return steps
}

// play runs the script in tx and returns what its reads saw.
func play(tx store.Tx, steps []step) ([]string, error) {
	var seen []string
	for _, s := range steps {
		var err error
		switch s.kind {
		case stepPut:
			err = tx.Put(s.key, s.value)
		case stepDelete:
			err = tx.Delete(s.key)
		case stepPutThenDelete:
			err = errors.Join(tx.Put(s.key, s.value), tx.Delete(s.key))
		case stepDeleteThenPut:
			err = errors.Join(tx.Delete(s.key), tx.Put(s.key, s.value))
		case stepOverwrite:
			err = errors.Join(tx.Put(s.key, s.value), tx.Put(s.key, s.value2))
		case stepGet:
			var v []byte
			v, err = tx.Get(s.key)
			if errors.Is(err, store.ErrNotFound) {
				seen, err = append(seen, fmt.Sprintf("get %x: none", s.key)), nil
			} else {
				seen = append(seen, fmt.Sprintf("get %x: %q", s.key, v))
			}
		case stepScan:
			err = tx.Scan(s.key, nil, store.ScanOptions{Limit: 40}, func(k, v []byte) bool {
				seen = append(seen, fmt.Sprintf("scan %x: %q", k, v))
				return true
			})
		}
		if err != nil {
			return nil, err
		}
	}
	return seen, nil
}

// contents lists every record of s.
func contents(t *testing.T, s store.Store) []string {
	t.Helper()
	var all []string
	err := s.View(context.Background(), func(tx store.Tx) error {
		all = all[:0]
		return tx.Scan(nil, nil, store.ScanOptions{}, func(k, v []byte) bool {
			all = append(all, fmt.Sprintf("%x=%q", k, v))
			return true
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return all
}

// One Update of 25,000 mixed writes (overwrites of one key, a delete then a
// put, a put then a delete, empty and large values) over records that
// already exist must read its own writes and commit the same records as the
// memory engine does: a batching that dropped or reordered a write, or
// answered a read without it, shows here.
func TestLargeUpdateMatchesMemory(t *testing.T) {
	pg, schema := openTest(t)
	engines := map[string]store.Store{"postgres": pg, "memory": memory.New()}
	seed := func(tx store.Tx) error {
		for i := 0; i < batchKeys; i += 2 {
			if err := tx.Put(batchKey(i), []byte("seed")); err != nil {
				return err
			}
		}
		return nil
	}
	steps := batchScript()
	seen := map[string][]string{}
	for name, s := range engines {
		if err := s.Update(context.Background(), seed); err != nil {
			t.Fatalf("%s: seeding: %v", name, err)
		}
		err := s.Update(context.Background(), func(tx store.Tx) error {
			var err error
			seen[name], err = play(tx, steps)
			return err
		})
		if err != nil {
			t.Fatalf("%s: Update: %v", name, err)
		}
	}
	if i := firstDifference(seen["postgres"], seen["memory"]); i >= 0 {
		t.Fatalf("read %d inside the Update differs: postgres %s, memory %s", i, at(seen["postgres"], i), at(seen["memory"], i))
	}
	want := contents(t, engines["memory"])
	for name, s := range map[string]store.Store{"postgres": pg, "another postgres handle": openAt(t, schema)} {
		if got := contents(t, s); !slices.Equal(got, want) {
			i := firstDifference(got, want)
			t.Fatalf("%s holds %d records, memory %d; first difference at %d: %s, want %s",
				name, len(got), len(want), i, at(got, i), at(want, i))
		}
	}
}

// firstDifference is the first index where a and b differ, -1 if none.
func firstDifference(a, b []string) int {
	for i := range max(len(a), len(b)) {
		if at(a, i) != at(b, i) {
			return i
		}
	}
	return -1
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "(nothing)"
}
