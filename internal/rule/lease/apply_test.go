package lease

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// generated stands for (X), a lease ID the service generates.
const generated = "X"

// outcome is one cell of an outcome table: either the 409 code, or the
// state and lease ID the operation leaves.
type outcome struct {
	code  string // non-empty: 409 with this code
	state State
	id    string // idA, idB, generated or "" (no lease)
}

func fail(code string) outcome      { return outcome{code: code} }
func to(s State, id string) outcome { return outcome{state: s, id: id} }

// Short names for the 409 codes failing lease actions answer (the lease
// rows of "Blob service error codes", as the SDKs' live tests expect them).
const (
	alreadyPresent    = azerr.LeaseAlreadyPresent
	breakingNoAcquire = azerr.LeaseIsBreakingAndCannotBeAcquired
	breakingNoChange  = azerr.LeaseIsBreakingAndCannotBeChanged
	brokenNoRenew     = azerr.LeaseIsBrokenAndCannotBeRenewed
	idMismatch        = azerr.LeaseIdMismatchWithLeaseOperation
	notPresentOp      = azerr.LeaseNotPresentWithLeaseOperation
)

// row is one action of an outcome table with its cells, in the column
// order of states.
type row struct {
	name  string
	req   Request
	cells []outcome
}

// leaseTable lists Lease Blob's "Outcomes of lease operations on blobs by
// lease state" (rows: actions; columns: Available, Leased (A), Breaking (A),
// Broken (A), Expired (A)), with the 409 code of each failing cell from the
// lease rows of "Blob service error codes". Leased (A) is a fixed 60 s lease with 50 s left and
// Breaking (A) has 25 s of its break left.
var leaseTableStates = []State{Available, Leased, Breaking, Broken, Expired}

func leaseTable() []row {
	acquire := func(proposed string) Request {
		return Request{Action: Acquire, ProposedID: proposed, Duration: ptr(15)}
	}
	return []row{
		{"acquire, no proposed ID", acquire(""), []outcome{
			to(Leased, generated), fail(alreadyPresent), fail(alreadyPresent), to(Leased, generated), to(Leased, generated)}},
		{"acquire (A)", acquire(idA), []outcome{
			to(Leased, idA), to(Leased, idA), fail(breakingNoAcquire), to(Leased, idA), to(Leased, idA)}},
		{"acquire (B)", acquire(idB), []outcome{
			to(Leased, idB), fail(alreadyPresent), fail(alreadyPresent), to(Leased, idB), to(Leased, idB)}},
		{"break, period 0", Request{Action: Break, BreakPeriod: ptr(0)}, []outcome{
			fail(notPresentOp), to(Broken, idA), to(Broken, idA), to(Broken, idA), to(Broken, idA)}},
		{"break, period 10", Request{Action: Break, BreakPeriod: ptr(10)}, []outcome{
			fail(notPresentOp), to(Breaking, idA), to(Breaking, idA), to(Broken, idA), to(Broken, idA)}},
		{"change (A) to (B)", Request{Action: Change, ID: idA, ProposedID: idB}, []outcome{
			fail(notPresentOp), to(Leased, idB), fail(breakingNoChange), fail(notPresentOp), fail(notPresentOp)}},
		{"change (B) to (A)", Request{Action: Change, ID: idB, ProposedID: idA}, []outcome{
			fail(notPresentOp), to(Leased, idA), fail(breakingNoChange), fail(notPresentOp), fail(notPresentOp)}},
		{"change (B) to (C)", Request{Action: Change, ID: idB, ProposedID: idC}, []outcome{
			fail(notPresentOp), fail(idMismatch), fail(idMismatch), fail(notPresentOp), fail(notPresentOp)}},
		{"renew (A)", Request{Action: Renew, ID: idA}, []outcome{
			fail(idMismatch), to(Leased, idA), fail(brokenNoRenew), fail(brokenNoRenew), to(Leased, idA)}},
		{"renew (B)", Request{Action: Renew, ID: idB}, []outcome{
			fail(idMismatch), fail(idMismatch), fail(idMismatch), fail(idMismatch), fail(idMismatch)}},
		{"release (A)", Request{Action: Release, ID: idA}, []outcome{
			fail(idMismatch), to(Available, ""), to(Available, ""), to(Available, ""), to(Available, "")}},
		{"release (B)", Request{Action: Release, ID: idB}, []outcome{
			fail(idMismatch), fail(idMismatch), fail(idMismatch), fail(idMismatch), fail(idMismatch)}},
	}
}

// TestLeaseOutcomes covers every cell of that table with those codes, for
// blobs, containers (Lease Container's table is identical) and shares.
func TestLeaseOutcomes(t *testing.T) {
	for _, k := range []Kind{Blob, Container, Share} {
		for _, r := range leaseTable() {
			for i, s := range leaseTableStates {
				name := fmt.Sprintf("%s/%s/%s", k.noun(), r.name, s)
				t.Run(name, func(t *testing.T) {
					checkCell(t, inState(t, s, k), r.req, k, r.cells[i])
				})
			}
		}
	}
}

// checkCell applies req to l at now and compares with the expected cell.
func checkCell(t *testing.T, l Lease, req Request, k Kind, want outcome) {
	t.Helper()
	next, res, err := Apply(l, req, now, k)
	if want.code != "" {
		wantErr(t, err, http.StatusConflict, want.code)
		if next != l {
			t.Fatalf("failed operation changed the lease: %+v -> %+v", l, next)
		}
		return
	}
	wantErr(t, err, 0, "")
	if got := next.State(now); got != want.state {
		t.Fatalf("state %s, want %s", got, want.state)
	}
	switch want.id {
	case generated:
		if _, ok := ParseID(next.ID); !ok || next.ID == idA || next.ID == idB {
			t.Fatalf("want a generated ID, got %q", next.ID)
		}
	default:
		if next.ID != want.id {
			t.Fatalf("lease ID %q, want %q", next.ID, want.id)
		}
	}
	checkResult(t, req, next, res)
}

// checkResult checks a success's status and headers (Lease Blob,
// "Response").
func checkResult(t *testing.T, req Request, next Lease, res Result) {
	t.Helper()
	wantStatus := map[string]int{Acquire: 201, Renew: 200, Change: 200, Release: 200, Break: 202}[req.Action]
	if res.Status != wantStatus {
		t.Errorf("status %d, want %d", res.Status, wantStatus)
	}
	wantID := next.ID
	if req.Action == Release || req.Action == Break {
		wantID = ""
	}
	if res.LeaseID != wantID {
		t.Errorf("x-ms-lease-id %q, want %q", res.LeaseID, wantID)
	}
	if (req.Action == Break) != (res.LeaseTime != nil) {
		t.Errorf("x-ms-lease-time %v on %s", res.LeaseTime, req.Action)
	}
}

// TestLeaseOutcomeDetails checks the annotations of the outcome table's
// cells: a new
// duration on re-acquire, a clock reset on renew, and the renew of an
// expired lease that was not written since.
func TestLeaseOutcomeDetails(t *testing.T) {
	reacquired := mustApply(t, inState(t, Leased, Blob), Request{Action: Acquire, ProposedID: idA, Duration: ptr(Infinite)}, now, Blob)
	if reacquired.DurationType(now) != "infinite" {
		t.Errorf("re-acquire kept the old duration: %+v", reacquired)
	}
	reacquired = mustApply(t, inState(t, Leased, Blob), Request{Action: Acquire, ProposedID: idA, Duration: ptr(15)}, now, Blob)
	if reacquired.Duration != 15 || !reacquired.Expires.Equal(now.Add(15*time.Second)) {
		t.Errorf("re-acquire with 15 s: %+v", reacquired)
	}

	renewed := mustApply(t, inState(t, Leased, Blob), Request{Action: Renew, ID: idA}, now, Blob)
	if renewed.Duration != 60 || !renewed.Expires.Equal(now.Add(60*time.Second)) {
		t.Errorf("renew did not restart the 60 s clock: %+v", renewed)
	}
	renewed = mustApply(t, inState(t, Expired, Blob), Request{Action: Renew, ID: idA}, now, Blob)
	if renewed.Duration != 15 || !renewed.Expires.Equal(now.Add(15*time.Second)) {
		t.Errorf("renew of an expired lease: %+v", renewed)
	}
	renewed = mustApply(t, Lease{ID: idA, Duration: Infinite}, Request{Action: Renew, ID: idA}, now, Blob)
	if renewed.DurationType(now) != "infinite" || !renewed.Expires.IsZero() {
		t.Errorf("renew of an infinite lease: %+v", renewed)
	}
}

// TestExpiredAfterWrite is the error-code table's "expired, blob modified
// since" row (the SDKs' live tests; Azurite agrees): an expired blob lease
// that was written since is forgotten, so the old ID can no longer renew it.
// The table's "break: ok" cell is not reproduced: the forgotten lease is
// available and a break of it is 409 LeaseNotPresentWithLeaseOperation.
func TestExpiredAfterWrite(t *testing.T) {
	written := inState(t, Expired, Blob).AfterWrite(now)
	tests := []struct {
		req  Request
		want outcome
	}{
		{Request{Action: Acquire, ProposedID: idA, Duration: ptr(15)}, to(Leased, idA)},
		{Request{Action: Acquire, ProposedID: idB, Duration: ptr(15)}, to(Leased, idB)},
		{Request{Action: Renew, ID: idA}, fail(idMismatch)},
		{Request{Action: Change, ID: idA, ProposedID: idB}, fail(notPresentOp)},
		{Request{Action: Release, ID: idA}, fail(idMismatch)},
		{Request{Action: Break}, fail(notPresentOp)},
	}
	for _, tt := range tests {
		t.Run(tt.req.Action, func(t *testing.T) { checkCell(t, written, tt.req, Blob, tt.want) })
	}
}

// TestBreakPeriods: effective period = min(requested, remaining); without
// one a fixed lease breaks when it would expire and an infinite one at
// once; a second break can only shorten a break; x-ms-lease-time is whole
// seconds rounded up.
func TestBreakPeriods(t *testing.T) {
	infinite := Lease{ID: idA, Duration: Infinite}
	fixed50 := Lease{ID: idA, Duration: 60, Expires: now.Add(50 * time.Second)}
	fixedFraction := Lease{ID: idA, Duration: 60, Expires: now.Add(49*time.Second + 500*time.Millisecond)}
	breaking25 := inState(t, Breaking, Blob)
	tests := []struct {
		name      string
		l         Lease
		period    *int
		state     State
		leaseTime int
	}{
		{"infinite, no period", infinite, nil, Broken, 0},
		{"infinite, period 0", infinite, ptr(0), Broken, 0},
		{"infinite, period 1", infinite, ptr(1), Breaking, 1},
		{"infinite, period 60", infinite, ptr(60), Breaking, 60},
		{"fixed, period longer than remaining", fixed50, ptr(60), Breaking, 50},
		{"fixed, period shorter than remaining", fixed50, ptr(20), Breaking, 20},
		{"fixed, period 0", fixed50, ptr(0), Broken, 0},
		{"fixed, no period: breaks at expiry", fixed50, nil, Breaking, 50},
		{"fixed, fractional remaining rounds up", fixedFraction, nil, Breaking, 50},
		{"breaking, period 0", breaking25, ptr(0), Broken, 0},
		{"breaking, no period", breaking25, nil, Breaking, 25},
		{"breaking, longer period does not extend", breaking25, ptr(40), Breaking, 25},
		{"breaking, shorter period wins", breaking25, ptr(10), Breaking, 10},
		{"broken, no period", inState(t, Broken, Blob), nil, Broken, 0},
		{"broken, period 30", inState(t, Broken, Blob), ptr(30), Broken, 0},
		{"expired, period 30", inState(t, Expired, Blob), ptr(30), Broken, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next, res, err := Apply(tt.l, Request{Action: Break, BreakPeriod: tt.period}, now, Blob)
			wantErr(t, err, 0, "")
			if got := next.State(now); got != tt.state {
				t.Errorf("state %s, want %s", got, tt.state)
			}
			if res.Status != http.StatusAccepted || res.LeaseTime == nil || *res.LeaseTime != tt.leaseTime {
				t.Fatalf("result %+v, want 202 with lease time %d", res, tt.leaseTime)
			}
			// Once the lease time has passed the lease is broken and can be
			// taken by anyone.
			after := now.Add(time.Duration(tt.leaseTime) * time.Second)
			if got := next.State(after); got != Broken {
				t.Errorf("after the lease time: %s", got)
			}
			if _, _, err := Apply(next, Request{Action: Acquire, ProposedID: idB, Duration: ptr(15)}, after, Blob); err != nil {
				t.Errorf("acquire after the lease time: %v", err)
			}
		})
	}
}

// fileTableStates are the columns of Lease File's tables.
var fileTableStates = []State{Available, Leased, Broken}

// TestFileLeaseOutcomes covers every cell of Lease File's "Outcomes of lease
// operations on files by lease state" table.
func TestFileLeaseOutcomes(t *testing.T) {
	acquire := func(proposed string) Request {
		return Request{Action: Acquire, ProposedID: proposed, Duration: ptr(Infinite)}
	}
	rows := []row{
		{"acquire, no proposed ID", acquire(""), []outcome{to(Leased, generated), fail(alreadyPresent), to(Leased, generated)}},
		{"acquire (A)", acquire(idA), []outcome{to(Leased, idA), to(Leased, idA), to(Leased, idA)}},
		{"acquire (B)", acquire(idB), []outcome{to(Leased, idB), fail(alreadyPresent), to(Leased, idB)}},
		{"break", Request{Action: Break}, []outcome{fail(notPresentOp), to(Broken, idA), to(Broken, idA)}},
		{"break, a period is ignored", Request{Action: Break, BreakPeriod: ptr(30)}, []outcome{fail(notPresentOp), to(Broken, idA), to(Broken, idA)}},
		{"change (A) to (B)", Request{Action: Change, ID: idA, ProposedID: idB}, []outcome{fail(notPresentOp), to(Leased, idB), fail(notPresentOp)}},
		{"change (B) to (A)", Request{Action: Change, ID: idB, ProposedID: idA}, []outcome{fail(notPresentOp), to(Leased, idA), fail(notPresentOp)}},
		{"change (B) to (C)", Request{Action: Change, ID: idB, ProposedID: idC}, []outcome{fail(notPresentOp), fail(idMismatch), fail(notPresentOp)}},
		{"release (A)", Request{Action: Release, ID: idA}, []outcome{fail(idMismatch), to(Available, ""), to(Available, "")}},
		{"release (B)", Request{Action: Release, ID: idB}, []outcome{fail(idMismatch), fail(idMismatch), fail(idMismatch)}},
	}
	for _, r := range rows {
		for i, s := range fileTableStates {
			t.Run(r.name+"/"+string(s), func(t *testing.T) {
				checkCell(t, inState(t, s, File), r.req, File, r.cells[i])
			})
		}
	}
}

// TestFileLeaseRules: file leases are infinite, have no renew and break
// immediately (x-ms-lease-time 0).
func TestFileLeaseRules(t *testing.T) {
	leased := inState(t, Leased, File)
	_, res, err := Apply(leased, Request{Action: Break, BreakPeriod: ptr(60)}, now, File)
	wantErr(t, err, 0, "")
	if *res.LeaseTime != 0 {
		t.Errorf("file break lease time %d, want 0", *res.LeaseTime)
	}
	_, _, err = Apply(leased, Request{Action: Renew, ID: idA}, now, File)
	wantErr(t, err, 400, azerr.InvalidHeaderValue)
	if leased.DurationType(now) != "infinite" {
		t.Errorf("file lease duration %q", leased.DurationType(now))
	}
}

// TestLeaseSequences are the multi-step behaviours of Lease Blob's remarks and the
// cloud tests: idempotent acquire and change, and the 2012-02-12 rules for
// renew and break after release.
func TestLeaseSequences(t *testing.T) {
	acquireA := Request{Action: Acquire, ProposedID: idA, Duration: ptr(Infinite)}
	t.Run("acquire with the same proposed ID twice", func(t *testing.T) {
		l := mustApply(t, Lease{}, acquireA, now, Blob)
		checkCell(t, l, acquireA, Blob, to(Leased, idA))
	})
	t.Run("acquire without proposed ID twice", func(t *testing.T) {
		l := mustApply(t, Lease{}, Request{Action: Acquire, Duration: ptr(Infinite)}, now, Blob)
		checkCell(t, l, Request{Action: Acquire, Duration: ptr(Infinite)}, Blob, fail(alreadyPresent))
	})
	t.Run("repeated change", func(t *testing.T) {
		l := mustApply(t, Lease{}, acquireA, now, Blob)
		l = mustApply(t, l, Request{Action: Change, ID: idA, ProposedID: idB}, now, Blob)
		checkCell(t, l, Request{Action: Change, ID: idA, ProposedID: idB}, Blob, to(Leased, idB))
		checkCell(t, l, Request{Action: Change, ID: idC, ProposedID: idB}, Blob, to(Leased, idB))
		checkCell(t, l, Request{Action: Change, ID: idA, ProposedID: idC}, Blob, fail(idMismatch))
	})
	t.Run("renew and break after release", func(t *testing.T) {
		l := mustApply(t, Lease{}, acquireA, now, Blob)
		l = mustApply(t, l, Request{Action: Release, ID: idA}, now, Blob)
		checkCell(t, l, Request{Action: Renew, ID: idA}, Blob, fail(idMismatch))
		checkCell(t, l, Request{Action: Break}, Blob, fail(notPresentOp))
		checkCell(t, l, Request{Action: Change, ID: idA, ProposedID: idA}, Blob, fail(notPresentOp))
	})
	t.Run("IDs compare in any GUID form", func(t *testing.T) {
		upper, _ := ParseID("{" + strings.ToUpper(idA) + "}")
		l := mustApply(t, Lease{}, Request{Action: Acquire, ProposedID: upper, Duration: ptr(Infinite)}, now, Blob)
		checkCell(t, l, Request{Action: Renew, ID: idA}, Blob, to(Leased, idA))
	})
}

// TestConflictMessagesNameTheResource: the real service words lease
// errors for the resource they concern.
func TestConflictMessagesNameTheResource(t *testing.T) {
	for _, k := range []Kind{Blob, Container, File, Share} {
		_, _, err := Apply(Lease{}, Request{Action: Break}, now, k)
		e, _ := azerr.As(err)
		if e == nil || !strings.HasSuffix(e.Message, "the "+k.noun()+".") {
			t.Errorf("%s: %v", k.noun(), err)
		}
	}
}

func TestApplyRejectsIncompleteRequests(t *testing.T) {
	_, _, err := Apply(Lease{}, Request{Action: "steal"}, now, Blob)
	wantErr(t, err, 400, azerr.InvalidHeaderValue)
	_, _, err = Apply(Lease{}, Request{Action: Acquire}, now, Blob)
	wantErr(t, err, 400, azerr.MissingRequiredHeader)
}
