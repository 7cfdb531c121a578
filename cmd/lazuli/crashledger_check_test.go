package main

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
)

// op is one write of a ledger test and the answer it got.
type op struct {
	writer int
	key    objectKey
	to     state
	answer error // nil: acknowledged
}

var (
	errKilled  = errors.New("connection reset: the server was killed") // in flight at the kill
	errRefused = &azcore.ResponseError{StatusCode: http.StatusPreconditionFailed}
)

// ledgerCycle is one storm cycle of a ledger test: the writes, then what
// the restarted server holds, then the faults the check must report (one
// substring per violation, in the order settle sorts them).
type ledgerCycle struct {
	writes   []op
	observed map[objectKey]state
	faults   []string
}

var (
	rangeA   = objectKey{kindRange, "f02/8"}
	blobA    = objectKey{kindBlob, "c0/g00/00001"}
	counterA = objectKey{kindCounter, "counter-01"}
	entityA  = objectKey{kindEntity, "c0-g04-00000"}
	msgA     = objectKey{kindMessage, "c0-g03-00001"}
	msgB     = objectKey{kindMessage, "c0-g08-00002"}
)

// TestLedgerSettle feeds the crash storm's check states a correct server
// could leave after a kill, which it must accept, and states no correct
// server could leave, which it must report under the right figure.
func TestLedgerSettle(t *testing.T) {
	zeros, w1, w2 := present("zeros"), present("write 1"), present("write 2")
	setup := map[objectKey]state{rangeA: zeros, counterA: present("0")}
	cases := []struct {
		name   string
		cycles []ledgerCycle
	}{
		{"range write in flight landed, a later one did not", []ledgerCycle{
			{writes: []op{{2, rangeA, w1, errKilled}}, observed: map[objectKey]state{rangeA: w1}},
			{writes: []op{{2, rangeA, w2, errKilled}}, observed: map[objectKey]state{rangeA: w1}},
		}},
		{"range write in flight did not land", []ledgerCycle{
			{writes: []op{{2, rangeA, w1, nil}, {2, rangeA, w2, errKilled}}, observed: map[objectKey]state{rangeA: w1}},
		}},
		{"acknowledged range lost", []ledgerCycle{
			{writes: []op{{2, rangeA, w1, nil}}, observed: map[objectKey]state{rangeA: zeros},
				faults: []string{`acknowledged write lost: range f02/8 (writer 2) is "zeros"`}},
		}},
		{"acknowledged range lost under a later write in flight", []ledgerCycle{
			{writes: []op{{2, rangeA, w1, nil}, {2, rangeA, w2, errKilled}}, observed: map[objectKey]state{rangeA: zeros},
				faults: []string{`possible: acknowledged "write 1", or in flight ["write 2"]`}},
		}},
		{"blob put in flight either way", []ledgerCycle{
			{writes: []op{{0, blobA, w1, errKilled}}, observed: map[objectKey]state{}},
			{writes: []op{{0, blobA, w2, errKilled}}, observed: map[objectKey]state{blobA: w2}},
		}},
		{"acknowledged blob lost", []ledgerCycle{
			{writes: []op{{0, blobA, w1, nil}}, observed: map[objectKey]state{}, faults: []string{"blob c0/g00/00001 (writer 0) is absent"}},
		}},
		{"a write seen not to land lands later", []ledgerCycle{
			{writes: []op{{0, blobA, w1, errKilled}}, observed: map[objectKey]state{}},
			{observed: map[objectKey]state{blobA: w1}, faults: []string{"blob c0/g00/00001 (writer 0) is \"write 1\""}},
		}},
		{"refused write landed", []ledgerCycle{
			{writes: []op{{1, counterA, present("1"), nil}, {1, counterA, present("2"), errRefused}},
				observed: map[objectKey]state{counterA: present("2")}, faults: []string{`counter counter-01 (writer 1) is "2"`}},
		}},
		{"counter bump in flight landed", []ledgerCycle{
			{writes: []op{{1, counterA, present("1"), nil}, {1, counterA, present("2"), errKilled}},
				observed: map[objectKey]state{counterA: present("2")}},
			{writes: []op{{1, counterA, present("3"), errKilled}}, observed: map[objectKey]state{counterA: present("2")}},
		}},
		{"entity insert in flight did not land, merge in flight did", []ledgerCycle{
			{writes: []op{{4, entityA, present("v0"), errKilled}}, observed: map[objectKey]state{}},
			{writes: []op{{4, entityA, present("v0"), nil}, {4, entityA, present("v1"), errKilled}},
				observed: map[objectKey]state{entityA: present("v1")}},
		}},
		{"entity merge lost", []ledgerCycle{
			{writes: []op{{4, entityA, present("v0"), nil}, {4, entityA, present("v1"), nil}},
				observed: map[objectKey]state{entityA: present("v0")}, faults: []string{`acknowledged write lost: entity c0-g04-00000 (writer 4) is "v0"`}},
		}},
		{"message delete in flight landed", []ledgerCycle{
			{writes: []op{{3, msgA, present(""), nil}, {8, msgA, absent, errKilled}}, observed: map[objectKey]state{}},
			{observed: map[objectKey]state{}},
		}},
		{"message delete in flight did not land", []ledgerCycle{
			{writes: []op{{3, msgA, present(""), nil}, {8, msgA, absent, errKilled}}, observed: map[objectKey]state{msgA: present("")}},
		}},
		{"message deleted by another writer before its put was acknowledged", []ledgerCycle{
			{writes: []op{{3, msgA, present(""), errKilled}, {8, msgA, absent, nil}, {3, msgA, present(""), nil}}, observed: map[objectKey]state{}},
		}},
		{"acknowledged message lost", []ledgerCycle{
			{writes: []op{{3, msgA, present(""), nil}, {8, msgB, present(""), nil}, {13, msgB, absent, errKilled}},
				observed: map[objectKey]state{},
				faults: []string{"acknowledged message c0-g03-00001 (put by writer 3) is neither present nor deleted after restart; " +
					"receive-and-deletes in flight at the kill: writer 13: c0-g08-00002"}},
		}},
		{"acknowledged message lost with no delete in flight", []ledgerCycle{
			{writes: []op{{3, msgA, present(""), nil}}, observed: map[objectKey]state{},
				faults: []string{"no receive-and-delete was in flight at the kill"}},
		}},
		{"acknowledged delete resurrected", []ledgerCycle{
			{writes: []op{{3, msgA, present(""), nil}, {8, msgA, absent, nil}}, observed: map[objectKey]state{}},
			{observed: map[objectKey]state{msgA: present("")}, faults: []string{"message c0-g03-00001 came back"}},
		}},
		{"acknowledged delete resurrected at once", []ledgerCycle{
			{writes: []op{{3, msgA, present(""), nil}, {8, msgA, absent, nil}}, observed: map[objectKey]state{msgA: present("")},
				faults: []string{"message c0-g03-00001 came back"}},
		}},
		{"message duplicated", []ledgerCycle{
			{writes: []op{{3, msgA, present(""), nil}}, observed: map[objectKey]state{msgA: messageCopies(2)},
				faults: []string{`message c0-g03-00001 (writer 3) is "2 copies"`}},
		}},
		{"object nothing wrote", []ledgerCycle{
			{observed: map[objectKey]state{blobA: w1}, faults: []string{"and nothing wrote it"}},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := newLedger()
			for key, s := range setup {
				l.existing(key, s)
			}
			for n, cycle := range tc.cycles {
				for _, w := range cycle.writes {
					_ = l.write(w.writer, w.key, w.to, func() error { return w.answer })
				}
				found := l.settle(withSetup(cycle.observed, setup))
				if len(found) != len(cycle.faults) {
					t.Fatalf("cycle %d: %d faults reported, want %d: %v", n, len(found), len(cycle.faults), texts(found))
				}
				for i, v := range found {
					if !strings.Contains(v.text, cycle.faults[i]) {
						t.Errorf("cycle %d: fault %q, want one saying %q", n, v.text, cycle.faults[i])
					}
				}
			}
		})
	}
}

// TestLedgerTally checks each fault is counted under its own figure.
func TestLedgerTally(t *testing.T) {
	l := newLedger()
	l.existing(rangeA, present("zeros"))
	for _, w := range []op{{2, rangeA, present("w"), nil}, {3, msgA, present(""), nil}, {3, msgB, present(""), nil}, {8, msgB, absent, nil}} {
		_ = l.write(w.writer, w.key, w.to, func() error { return w.answer })
	}
	l.settle(map[objectKey]state{msgB: present(""), blobA: present("x")})
	want := tally{acknowledged: 4, checked: 3, lost: 1, lostMessages: 1, resurrected: 1, phantom: 1}
	if l.tally != want {
		t.Errorf("tally %+v, want %+v", l.tally, want)
	}
}

// withSetup is observed, with the objects the setup created as they were
// unless observed says otherwise.
func withSetup(observed, setup map[objectKey]state) map[objectKey]state {
	all := map[objectKey]state{}
	for key, s := range setup {
		all[key] = s
	}
	for key, s := range observed {
		all[key] = s
	}
	return all
}

func texts(vs []violation) []string {
	var s []string
	for _, v := range vs {
		s = append(s, v.text)
	}
	return s
}
