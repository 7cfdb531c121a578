package bench

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
)

// answerRecorder keeps the status and header names of the first answer to
// each method a client gets.
type answerRecorder struct {
	next    http.RoundTripper
	answers map[string]recordedAnswer
}

type recordedAnswer struct {
	status int
	names  []string
}

func (a *answerRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := a.next.RoundTrip(r)
	if err != nil {
		return resp, err
	}
	if _, seen := a.answers[r.Method]; !seen {
		var names []string
		for k := range resp.Header {
			names = append(names, k)
		}
		slices.Sort(names)
		a.answers[r.Method] = recordedAnswer{status: resp.StatusCode, names: names}
	}
	return resp, nil
}

// measuredAnswers runs one measured operation of scenario name on target
// and returns the answers it got, by method.
func measuredAnswers(t *testing.T, target Target, name string) map[string]recordedAnswer {
	t.Helper()
	ctx := context.Background()
	s, ok := scenarioByName(name)
	if !ok {
		t.Fatalf("no scenario %s", name)
	}
	e := &env{target: target, opts: testOptions(false), prefix: s.shortName() + randomHex(4), workers: 1}
	setup, err := e.connect(target, s, 2)
	if err != nil {
		t.Fatal(err)
	}
	if target.null != nil {
		if err := target.null.setBodySize(ctx, s.nullBody); err != nil {
			t.Fatal(err)
		}
	}
	do, cleanup, err := setup(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup(ctx)
	rec := &answerRecorder{next: e.c.http.Transport, answers: map[string]recordedAnswer{}}
	e.c.http.Transport = rec
	_, err = do(ctx, 0, measuredSeq)
	e.c.http.Transport = rec.next
	if err != nil {
		t.Fatalf("%s on %s: %v", name, target.Name, err)
	}
	return rec.answers
}

// TestNullAnswersAsLazuli checks that the null target answers each small
// request scenario with the status and header names Lazuli answers it
// with, so that a ratio to null compares servers writing the same answer.
func TestNullAnswersAsLazuli(t *testing.T) {
	lazuli := startLazuli(t)
	null, closeNull, err := NullTarget()
	if err != nil {
		t.Fatal(err)
	}
	defer closeNull()
	for _, name := range []string{"blob-get-1k", "blob-put-1k", "table-point-get", "cond-update"} {
		want := measuredAnswers(t, lazuli, name)
		got := measuredAnswers(t, null, name)
		for method, w := range want {
			g := got[method]
			if g.status != w.status || !slices.Equal(g.names, w.names) {
				t.Errorf("%s %s: null answers %d %v; Lazuli answers %d %v", name, method, g.status, g.names, w.status, w.names)
			}
		}
	}
}

// reusedWriter is a ResponseWriter that keeps its header map between
// requests, as a connection's writer does not; it lets AllocsPerRun see the
// handler's own allocations only.
type reusedWriter struct{ h http.Header }

func (w *reusedWriter) Header() http.Header         { return w.h }
func (w *reusedWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *reusedWriter) WriteHeader(int)             {}

// TestNullServerAllocatesNothing keeps the null server's own cost per
// request at zero allocations, so that its CPU per request is net/http's.
func TestNullServerAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own account")
	}
	n := &nullServer{}
	n.setBody(kib)
	for _, method := range []string{http.MethodGet, http.MethodPut} {
		r := httptest.NewRequest(method, "/acct/c/b", nil)
		w := &reusedWriter{h: http.Header{}}
		allocs := testing.AllocsPerRun(100, func() {
			clear(w.h)
			n.ServeHTTP(w, r)
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per request; want 0", method, allocs)
		}
	}
}
