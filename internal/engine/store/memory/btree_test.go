package memory

import (
	"bytes"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
)

// model is the obviously correct reference the B-tree is compared with.
type model map[string]string

func (m model) sortedKeys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// checkTree verifies the B-tree invariants and that root holds exactly m.
func checkTree(t *testing.T, root *node, m model) {
	t.Helper()
	var got []string
	ascend(root, nil, nil, func(k, v []byte) bool {
		if m[string(k)] != string(v) {
			t.Fatalf("key %q: value %q, want %q", k, v, m[string(k)])
		}
		got = append(got, string(k))
		return true
	})
	if want := m.sortedKeys(); !slices.Equal(got, want) {
		t.Fatalf("keys in tree differ from model:\n got %q\nwant %q", got, want)
	}
	if root != nil {
		checkNode(t, root, true)
	}
}

// checkNode checks item counts, child counts and equal leaf depth; it returns
// the height of n.
func checkNode(t *testing.T, n *node, isRoot bool) int {
	t.Helper()
	if len(n.items) > maxItems || (!isRoot && len(n.items) < minItems) || len(n.items) == 0 {
		t.Fatalf("node with %d items (root %v)", len(n.items), isRoot)
	}
	for i := 1; i < len(n.items); i++ {
		if bytes.Compare(n.items[i-1].key, n.items[i].key) >= 0 {
			t.Fatalf("items out of order: %q then %q", n.items[i-1].key, n.items[i].key)
		}
	}
	if n.leaf() {
		return 1
	}
	if len(n.children) != len(n.items)+1 {
		t.Fatalf("%d items but %d children", len(n.items), len(n.children))
	}
	height := -1
	for _, c := range n.children {
		h := checkNode(t, c, false)
		if height >= 0 && h != height {
			t.Fatalf("leaves at different depths: %d and %d", height, h)
		}
		height = h
	}
	return height + 1
}

// TestTreeAgainstModel applies random puts and deletes in versions of random
// size and checks after every version that the tree matches the model, that
// its invariants hold, and that every earlier version is still intact.
func TestTreeAgainstModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	type snapshot struct {
		root *node
		m    model
	}
	var history []snapshot
	var root *node
	current := model{}
	for version := uint64(1); version <= 200; version++ {
		tr := tree{root: root, version: version}
		next := maps.Clone(current)
		for range rng.IntN(40) + 1 {
			key := fmt.Sprintf("k%04d", rng.IntN(1500))
			if rng.IntN(3) == 0 {
				tr.delete([]byte(key))
				delete(next, key)
			} else {
				value := fmt.Sprintf("v%d-%d", version, rng.IntN(1000))
				tr.put([]byte(key), []byte(value))
				next[key] = value
			}
		}
		checkTree(t, tr.root, next)
		history = append(history, snapshot{root, current})
		root, current = tr.root, next
	}
	// Every earlier version must still be intact; checking a sample of them
	// keeps the test quick under -race.
	for i := 0; i < len(history); i += 7 {
		checkTree(t, history[i].root, history[i].m)
	}
}

// TestTreeDrainsToEmpty deletes every key, in random order, from a tree deep
// enough to exercise merges at several levels.
func TestTreeDrainsToEmpty(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	tr := tree{version: 1}
	m := model{}
	for i := range 5000 {
		key := fmt.Sprintf("%08d", i)
		tr.put([]byte(key), []byte("x"))
		m[key] = "x"
	}
	checkTree(t, tr.root, m)
	keys := m.sortedKeys()
	rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	for i, key := range keys {
		if !tr.delete([]byte(key)) {
			t.Fatalf("delete %q reported absent", key)
		}
		delete(m, key)
		if i%500 == 0 {
			checkTree(t, tr.root, m)
		}
	}
	if tr.root != nil {
		t.Fatalf("empty tree keeps a root with %d items", len(tr.root.items))
	}
	if tr.delete([]byte("nothing")) {
		t.Fatal("delete of a missing key reported present")
	}
}

// TestTreeRanges compares bounded, reversed and stopped walks with the model.
func TestTreeRanges(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	tr := tree{version: 1}
	m := model{}
	for range 3000 {
		key := fmt.Sprintf("%05d", rng.IntN(20000))
		tr.put([]byte(key), []byte(key))
		m[key] = key
	}
	keys := m.sortedKeys()
	for range 200 {
		lo := fmt.Sprintf("%05d", rng.IntN(21000))
		hi := fmt.Sprintf("%05d", rng.IntN(21000))
		var want []string
		for _, k := range keys {
			if k >= lo && k < hi {
				want = append(want, k)
			}
		}
		var up, down []string
		ascend(tr.root, []byte(lo), []byte(hi), func(k, _ []byte) bool { up = append(up, string(k)); return true })
		descend(tr.root, []byte(lo), []byte(hi), func(k, _ []byte) bool { down = append(down, string(k)); return true })
		slices.Reverse(down)
		if !slices.Equal(up, want) || !slices.Equal(down, want) {
			t.Fatalf("[%s, %s): ascend %d keys, descend %d, want %d", lo, hi, len(up), len(down), len(want))
		}
		stopAfter := rng.IntN(5) + 1
		var stopped []string
		ascend(tr.root, []byte(lo), nil, func(k, _ []byte) bool {
			stopped = append(stopped, string(k))
			return len(stopped) < stopAfter
		})
		if len(stopped) > stopAfter {
			t.Fatalf("walk went on after its callback returned false: %d keys", len(stopped))
		}
	}
}
