package main

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
)

// The crash storm's ledger models every object it writes as a correct
// server may hold it after a SIGKILL: the state its last acknowledged write
// left, or the state of any write still in flight at the kill, which may or
// may not have landed. After each restart settle compares what the server
// holds with that set, and nothing else: a state outside it is a server
// fault, and a state inside it is not, whichever way an in-flight write went.

// kind is a kind of object the storm writes.
type kind string

const (
	kindBlob    kind = "blob"    // Put Blob
	kindCounter kind = "counter" // a blob updated with If-Match
	kindRange   kind = "range"   // 1 KiB range of a file, written with Put Range
	kindEntity  kind = "entity"  // table entity: Insert, then Merge
	kindMessage kind = "message" // queue message: Put, then maybe Delete
)

// objectKey names one object of the storm.
type objectKey struct {
	kind kind
	name string
}

func (k objectKey) String() string { return string(k.kind) + " " + k.name }

// state is one possible content of an object: absent, or present with a
// value (the bytes, or what stands for them, such as a blob's digest).
type state struct {
	present bool
	value   string
}

var absent = state{}

func present(value string) state { return state{present: true, value: value} }

func (s state) String() string {
	switch {
	case !s.present:
		return "absent"
	case len(s.value) > 40:
		return strconv.Quote(s.value[:40]) + "…"
	}
	return strconv.Quote(s.value)
}

// object is what the ledger knows of one object.
type object struct {
	acked    state   // left by the last acknowledged write
	inFlight []state // writes not acknowledged; any one may have landed
	gone     bool    // its delete was acknowledged: nothing may bring it back
	writer   int     // the writer that last wrote (not deleted) it, for failure messages
}

// pendingWrite is the one write a writer has in flight.
type pendingWrite struct {
	key objectKey
	to  state
}

// tally counts what the storm wrote and what the checks found.
type tally struct {
	acknowledged int // writes the server acknowledged
	checked      int // object states compared after restarts
	landed       int // in-flight writes found to have landed
	lost         int // acknowledged writes missing or changed
	lostMessages int // acknowledged messages neither present nor deleted
	resurrected  int // objects back after an acknowledged delete
	phantom      int // states no write could have left
}

// violation is one state a correct server could not have produced.
type violation struct {
	counter *int // the tally figure it counts under
	text    string
}

// ledger is the storm's record; its methods are safe for concurrent use by
// the writers.
type ledger struct {
	mu       sync.Mutex
	objects  map[objectKey]*object
	touched  map[objectKey]bool   // written since the last settle
	inFlight map[int]pendingWrite // writer -> its write in flight
	tally    tally
}

func newLedger() *ledger {
	return &ledger{objects: map[objectKey]*object{}, touched: map[objectKey]bool{}, inFlight: map[int]pendingWrite{}}
}

// object returns key's object, creating it absent.
func (l *ledger) object(key objectKey, writer int) *object {
	o := l.objects[key]
	if o == nil {
		o = &object{writer: writer}
		l.objects[key] = o
	}
	return o
}

// existing records an object the storm's setup created and saw acknowledged.
func (l *ledger) existing(key objectKey, s state) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.object(key, -1).acked = s
}

// write records a write of key to s by writer around do, which sends it:
// in flight until do returns, then acknowledged on success, or known not
// to have landed when the server refused it with a 4xx. Anything else (a
// dropped connection, a 5xx) leaves it in flight: it may have landed.
// The storm's clients do not retry, so one answer is the whole story.
func (l *ledger) write(writer int, key objectKey, s state, do func() error) error {
	l.begin(writer, key, s)
	err := do()
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case err == nil:
		l.settleWrite(writer, key, s, true)
	case refused(err):
		l.settleWrite(writer, key, s, false)
	}
	return err
}

func (l *ledger) begin(writer int, key objectKey, s state) {
	l.mu.Lock()
	defer l.mu.Unlock()
	o := l.object(key, writer)
	if s.present {
		o.writer = writer
	}
	if !(o.gone && s.present) {
		o.inFlight = append(o.inFlight, s)
	}
	l.touched[key] = true
	l.inFlight[writer] = pendingWrite{key, s}
}

// settleWrite takes the answered write out of flight and, if it was
// acknowledged, makes its state the acknowledged one.
func (l *ledger) settleWrite(writer int, key objectKey, s state, acknowledged bool) {
	delete(l.inFlight, writer)
	o := l.objects[key]
	o.inFlight = removeOne(o.inFlight, s)
	if !acknowledged {
		return
	}
	l.tally.acknowledged++
	if o.gone {
		// A put acknowledged after another writer received and deleted
		// the message: the delete stands.
		return
	}
	o.acked = s
	if key.kind == kindMessage && !s.present {
		o.gone = true
		o.inFlight = nil // a put of it in flight cannot bring it back
	}
}

// consumed records that the checker itself deleted a message, with an
// acknowledged delete.
func (l *ledger) consumed(key objectKey) {
	l.mu.Lock()
	defer l.mu.Unlock()
	o := l.object(key, -1)
	o.acked, o.gone, o.inFlight = absent, true, nil
}

func removeOne(states []state, s state) []state {
	for i, t := range states {
		if t == s {
			return append(states[:i], states[i+1:]...)
		}
	}
	return states
}

func refused(err error) bool {
	var re *azcore.ResponseError
	return errors.As(err, &re) && re.StatusCode >= 400 && re.StatusCode < 500
}

// wasTouched reports whether key was written since the last settle.
func (l *ledger) wasTouched(key objectKey) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.touched[key]
}

// settle checks what the restarted server holds (observed: every object of
// the storm it holds, absent ones left out) against the ledger, with no
// writer running. A state equal to an in-flight write's becomes the
// acknowledged one: that write landed, and a later cycle must expect it.
// Every write still in flight is then resolved, one way or the other.
func (l *ledger) settle(observed map[objectKey]state) []violation {
	l.mu.Lock()
	defer l.mu.Unlock()
	var found []violation
	for key, o := range l.objects {
		got := observed[key]
		l.tally.checked++
		switch {
		case got == o.acked:
		case contains(o.inFlight, got):
			l.tally.landed++
			o.acked = got
			o.gone = o.gone || (key.kind == kindMessage && !got.present)
		default:
			found = append(found, l.explain(key, o, got))
			o.acked = got // report it once, not again every cycle
		}
		o.inFlight = nil
	}
	for key, got := range observed {
		if l.objects[key] == nil {
			found = append(found, violation{&l.tally.phantom, fmt.Sprintf("%s is %s after restart, and nothing wrote it", key, got)})
			l.objects[key] = &object{acked: got, writer: -1}
		}
	}
	for _, v := range found {
		*v.counter++
	}
	l.touched = map[objectKey]bool{}
	l.inFlight = map[int]pendingWrite{}
	sort.Slice(found, func(i, j int) bool { return found[i].text < found[j].text })
	return found
}

// explain names the fault of an object whose state got is outside what a
// correct server could hold.
func (l *ledger) explain(key objectKey, o *object, got state) violation {
	possible := fmt.Sprintf("acknowledged %s", o.acked)
	if len(o.inFlight) > 0 {
		possible += fmt.Sprintf(", or in flight %v", o.inFlight)
	}
	switch {
	case o.gone:
		return violation{&l.tally.resurrected, fmt.Sprintf("%s came back (%s) after its delete was acknowledged", key, got)}
	case key.kind == kindMessage && !got.present:
		return violation{&l.tally.lostMessages, fmt.Sprintf("acknowledged %s (put by writer %d) is neither present nor deleted after restart; %s",
			key, o.writer, l.deletesInFlight())}
	case key.kind == kindMessage && got.present:
		return violation{&l.tally.phantom, fmt.Sprintf("%s (writer %d) is %s after restart; possible: %s", key, o.writer, got, possible)}
	case o.acked.present:
		return violation{&l.tally.lost, fmt.Sprintf("acknowledged write lost: %s (writer %d) is %s after restart; possible: %s", key, o.writer, got, possible)}
	}
	return violation{&l.tally.phantom, fmt.Sprintf("%s (writer %d) is %s after restart; possible: %s", key, o.writer, got, possible)}
}

// deletesInFlight lists the receive-and-delete each writer had in flight
// at the kill: the only messages that may be missing unacknowledged.
func (l *ledger) deletesInFlight() string {
	var names []string
	for writer, w := range l.inFlight {
		if w.key.kind == kindMessage && !w.to.present {
			names = append(names, fmt.Sprintf("writer %d: %s", writer, w.key.name))
		}
	}
	if len(names) == 0 {
		return "no receive-and-delete was in flight at the kill"
	}
	sort.Strings(names)
	return "receive-and-deletes in flight at the kill: " + strings.Join(names, ", ")
}

func contains(states []state, s state) bool {
	for _, t := range states {
		if t == s {
			return true
		}
	}
	return false
}

// summary is the storm's figures, for the log.
func (t tally) summary() string {
	return fmt.Sprintf("%d acknowledged writes, %d object states checked, %d in-flight writes landed; "+
		"%d lost, %d resurrected, %d lost messages, %d phantom",
		t.acknowledged, t.checked, t.landed, t.lost, t.resurrected, t.lostMessages, t.phantom)
}
