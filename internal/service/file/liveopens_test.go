package file

import (
	"testing"

	"github.com/lazuli-storage/lazuli/internal/service/file/smbstate"
)

// The opens of dead nodes go; a delete-pending flag goes with them only
// when no live open is left to carry it out.
func TestForgetOpensOfDeadNodes(t *testing.T) {
	const live, dead = 7, 9
	alive := func(node uint64) (bool, error) { return node != dead, nil }
	cases := []struct {
		name        string
		nodes       []uint64
		pending     bool
		wantHandles []uint64
		wantPending bool
	}{
		{"all live", []uint64{live, 0}, true, []uint64{1, 2}, true},
		{"one dead", []uint64{live, dead}, true, []uint64{1}, true},
		{"all dead", []uint64{dead, dead}, true, nil, false},
		{"all dead, not pending", []uint64{dead}, false, nil, false},
		{"pending without opens stays", nil, true, nil, true},
	}
	for _, c := range cases {
		n := &node{DeletePending: c.pending}
		for i, id := range c.nodes {
			n.Opens = append(n.Opens, smbstate.Open{HandleID: uint64(i + 1), Node: id})
		}
		if err := forgetOpensOf(n, alive); err != nil {
			t.Fatal(err)
		}
		var got []uint64
		for _, o := range n.Opens {
			got = append(got, o.HandleID)
		}
		if len(got) != len(c.wantHandles) || (len(got) > 0 && got[0] != c.wantHandles[0]) || n.DeletePending != c.wantPending {
			t.Errorf("%s: handles %v pending %v, want %v %v", c.name, got, n.DeletePending, c.wantHandles, c.wantPending)
		}
	}
}

// The node of each open survives the record codec.
func TestOpenNodesRoundTrip(t *testing.T) {
	n := &node{Name: "f", ID: 3, Opens: []smbstate.Open{{HandleID: 1, Node: 5}, {HandleID: 2}}}
	got, err := decodeNode(n.encode())
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Opens) != 2 || got.Opens[0].Node != 5 || got.Opens[1].Node != 0 {
		t.Fatalf("opens %+v", got.Opens)
	}
}
