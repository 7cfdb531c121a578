package memory

import (
	"bytes"
	"slices"
)

// The record map is a copy-on-write B-tree. Every node remembers the version
// (write transaction) that created it. A write transaction may modify in place
// only the nodes of its own version; any older node it needs to change is
// copied first, and the copy's ancestors with it (path copying). Nodes of a
// published version are therefore never modified again, so a reader that
// holds a root sees a frozen snapshot without any lock, while a writer builds
// the next version next to it. Nodes copied once by a transaction are reused
// for all its later writes, which keeps a multi-key Update cheap.

// degree is the B-tree's minimum degree: a node other than the root holds
// between degree-1 and 2*degree-1 items. A write copies one node per level,
// so smaller nodes copy fewer bytes but make the tree deeper; 16 measured
// best (about five levels at a million records).
const (
	degree   = 16
	maxItems = 2*degree - 1
	minItems = degree - 1
)

type item struct {
	key   []byte
	value []byte
}

type node struct {
	items    []item
	children []*node // nil for a leaf, else len(items)+1 subtrees
	version  uint64  // the write transaction that created this node
}

func (n *node) leaf() bool { return n.children == nil }

// search returns the index of the first item whose key is >= key, and whether
// that item's key equals key.
func (n *node) search(key []byte) (int, bool) {
	lo, hi := 0, len(n.items)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if bytes.Compare(n.items[mid].key, key) < 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo, lo < len(n.items) && bytes.Equal(n.items[lo].key, key)
}

// tree is one version of the map while a write transaction builds it.
type tree struct {
	root    *node
	version uint64
}

// get returns the value at key from the tree rooted at n.
func get(n *node, key []byte) ([]byte, bool) {
	for n != nil {
		i, found := n.search(key)
		if found {
			return n.items[i].value, true
		}
		if n.leaf() {
			return nil, false
		}
		n = n.children[i]
	}
	return nil, false
}

// mutable returns n itself if this transaction created it, else a copy owned
// by this transaction. The copy has room for one more item (and child), which
// covers the common single insert; copying is the main cost of a write, so
// copies are kept no larger than that.
func (t *tree) mutable(n *node) *node {
	if n.version == t.version {
		return n
	}
	c := &node{version: t.version, items: make([]item, len(n.items), len(n.items)+1)}
	copy(c.items, n.items)
	if !n.leaf() {
		c.children = make([]*node, len(n.children), len(n.children)+1)
		copy(c.children, n.children)
	}
	return c
}

// mutableChild makes child i of the mutable node n mutable and returns it.
func (t *tree) mutableChild(n *node, i int) *node {
	c := t.mutable(n.children[i])
	n.children[i] = c
	return c
}

func (t *tree) newNode(leaf bool) *node {
	n := &node{version: t.version, items: make([]item, 0, maxItems)}
	if !leaf {
		n.children = make([]*node, 0, maxItems+1)
	}
	return n
}

// put stores value at key. A new key is copied, because callers build keys in
// reusable buffers; the value belongs to the store from now on.
func (t *tree) put(key, value []byte) {
	if t.root == nil {
		t.root = t.newNode(true)
		t.root.items = append(t.root.items, item{key: bytes.Clone(key), value: value})
		return
	}
	root := t.mutable(t.root)
	if len(root.items) >= maxItems {
		mid, right := t.split(root)
		newRoot := t.newNode(false)
		newRoot.items = append(newRoot.items, mid)
		newRoot.children = append(newRoot.children, root, right)
		root = newRoot
	}
	t.root = root
	t.insert(root, key, value)
}

// split moves the upper half of the full mutable node n into a new node and
// returns the middle item, which the caller lifts into the parent.
func (t *tree) split(n *node) (item, *node) {
	const half = maxItems / 2
	mid := n.items[half]
	right := t.newNode(n.leaf())
	right.items = append(right.items, n.items[half+1:]...)
	clear(n.items[half:])
	n.items = n.items[:half]
	if !n.leaf() {
		right.children = append(right.children, n.children[half+1:]...)
		clear(n.children[half+1:])
		n.children = n.children[:half+1]
	}
	return mid, right
}

// insert stores key/value below the mutable, non-full node n, splitting full
// children on the way down so that a split never has to climb back up.
func (t *tree) insert(n *node, key, value []byte) {
	for {
		i, found := n.search(key)
		if found {
			n.items[i].value = value
			return
		}
		if n.leaf() {
			n.items = slices.Insert(n.items, i, item{key: bytes.Clone(key), value: value})
			return
		}
		if len(n.children[i].items) >= maxItems {
			child := t.mutableChild(n, i)
			mid, right := t.split(child)
			n.items = slices.Insert(n.items, i, mid)
			n.children = slices.Insert(n.children, i+1, right)
			switch c := bytes.Compare(key, mid.key); {
			case c == 0:
				n.items[i].value = value
				return
			case c > 0:
				i++
			}
		}
		n = t.mutableChild(n, i)
	}
}

// delete removes key and reports whether it was present.
func (t *tree) delete(key []byte) bool {
	if t.root == nil {
		return false
	}
	if _, found := get(t.root, key); !found {
		// Checking first avoids copying a path for a key that is not there.
		return false
	}
	root := t.mutable(t.root)
	t.remove(root, key)
	switch {
	case len(root.items) > 0:
		t.root = root
	case root.leaf():
		t.root = nil
	default:
		t.root = root.children[0]
	}
	return true
}

// remove deletes key from the subtree of the mutable node n. Before it
// descends into a child it makes sure the child has more than the minimum
// number of items, so that removing one never leaves a node underfull.
func (t *tree) remove(n *node, key []byte) {
	for {
		i, found := n.search(key)
		if n.leaf() {
			if found {
				n.items = slices.Delete(n.items, i, i+1)
			}
			return
		}
		if len(n.children[i].items) <= minItems {
			t.growChild(n, i)
			continue // items moved between n and its children: search again
		}
		child := t.mutableChild(n, i)
		if found {
			// Replace the key by its predecessor, the largest key on its left.
			n.items[i] = t.removeMax(child)
			return
		}
		n = child
	}
}

// removeMax removes and returns the largest item below the mutable node n.
func (t *tree) removeMax(n *node) item {
	for {
		if n.leaf() {
			last := n.items[len(n.items)-1]
			n.items[len(n.items)-1] = item{}
			n.items = n.items[:len(n.items)-1]
			return last
		}
		i := len(n.items)
		if len(n.children[i].items) <= minItems {
			t.growChild(n, i)
			continue
		}
		n = t.mutableChild(n, i)
	}
}

// growChild gives child i of the mutable node n at least minItems+1 items by
// borrowing from a sibling that can spare one, or else by merging the child
// with a sibling and the separating item of n.
func (t *tree) growChild(n *node, i int) {
	switch {
	case i > 0 && len(n.children[i-1].items) > minItems:
		t.borrowFromLeft(n, i)
	case i < len(n.items) && len(n.children[i+1].items) > minItems:
		t.borrowFromRight(n, i)
	default:
		if i >= len(n.items) {
			i--
		}
		t.mergeChildren(n, i)
	}
}

func (t *tree) borrowFromLeft(n *node, i int) {
	child := t.mutableChild(n, i)
	left := t.mutableChild(n, i-1)
	child.items = slices.Insert(child.items, 0, n.items[i-1])
	last := len(left.items) - 1
	n.items[i-1] = left.items[last]
	left.items[last] = item{}
	left.items = left.items[:last]
	if !left.leaf() {
		lastChild := len(left.children) - 1
		child.children = slices.Insert(child.children, 0, left.children[lastChild])
		left.children[lastChild] = nil
		left.children = left.children[:lastChild]
	}
}

func (t *tree) borrowFromRight(n *node, i int) {
	child := t.mutableChild(n, i)
	right := t.mutableChild(n, i+1)
	child.items = append(child.items, n.items[i])
	n.items[i] = right.items[0]
	right.items = slices.Delete(right.items, 0, 1)
	if !right.leaf() {
		child.children = append(child.children, right.children[0])
		right.children = slices.Delete(right.children, 0, 1)
	}
}

// mergeChildren joins child i, item i of n and child i+1 into child i.
func (t *tree) mergeChildren(n *node, i int) {
	child := t.mutableChild(n, i)
	right := n.children[i+1]
	child.items = append(child.items, n.items[i])
	child.items = append(child.items, right.items...)
	if !child.leaf() {
		child.children = append(child.children, right.children...)
	}
	n.items = slices.Delete(n.items, i, i+1)
	n.children = slices.Delete(n.children, i+1, i+2)
}

// ascend visits, in ascending order, the items of the subtree n with
// start <= key < end (nil end: no upper bound) until visit returns false. It
// returns false once the walk must stop.
func ascend(n *node, start, end []byte, visit func(key, value []byte) bool) bool {
	if n == nil {
		return true
	}
	i, _ := n.search(start)
	for ; i < len(n.items); i++ {
		if !n.leaf() && !ascend(n.children[i], start, end, visit) {
			return false
		}
		it := n.items[i]
		if end != nil && bytes.Compare(it.key, end) >= 0 {
			return false
		}
		if !visit(it.key, it.value) {
			return false
		}
	}
	if n.leaf() {
		return true
	}
	return ascend(n.children[len(n.items)], start, end, visit)
}

// descend is ascend in descending order.
func descend(n *node, start, end []byte, visit func(key, value []byte) bool) bool {
	if n == nil {
		return true
	}
	i := len(n.items)
	if end != nil {
		i, _ = n.search(end)
	}
	if !n.leaf() && !descend(n.children[i], start, end, visit) {
		return false
	}
	for i--; i >= 0; i-- {
		it := n.items[i]
		if bytes.Compare(it.key, start) < 0 {
			return false
		}
		if !visit(it.key, it.value) {
			return false
		}
		if !n.leaf() && !descend(n.children[i], start, end, visit) {
			return false
		}
	}
	return true
}
