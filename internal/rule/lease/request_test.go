package lease

import (
	"net/http"
	"strings"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/base/guid"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

func leaseHeader(pairs ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(pairs); i += 2 {
		h.Set(pairs[i], pairs[i+1])
	}
	return h
}

func TestParseRequest(t *testing.T) {
	const (
		action   = HeaderAction
		id       = HeaderID
		proposed = HeaderProposedID
		duration = HeaderDuration
		period   = HeaderBreakPeriod
		missing  = azerr.MissingRequiredHeader
		invalid  = azerr.InvalidHeaderValue
	)
	tests := []struct {
		name    string
		kind    Kind
		h       http.Header
		want    Request
		code    string // non-empty: 400 with this code naming header
		header  string
		noCheck bool // only the error matters
	}{
		{name: "no action", h: leaseHeader(), code: missing, header: action},
		{name: "unknown action", h: leaseHeader(action, "steal"), code: invalid, header: action},
		{name: "acquire infinite", h: leaseHeader(action, "acquire", duration, "-1"),
			want: Request{Action: Acquire, Duration: ptr(-1)}},
		{name: "action is case-insensitive", h: leaseHeader(action, "Acquire", duration, "15"),
			want: Request{Action: Acquire, Duration: ptr(15)}},
		{name: "acquire 60 with proposed", h: leaseHeader(action, "acquire", duration, "60", proposed, strings.ToUpper(idA)),
			want: Request{Action: Acquire, Duration: ptr(60), ProposedID: idA}},
		{name: "acquire without duration", h: leaseHeader(action, "acquire"), code: missing, header: duration},
		{name: "acquire 14 s", h: leaseHeader(action, "acquire", duration, "14"), code: invalid, header: duration},
		{name: "acquire 61 s", h: leaseHeader(action, "acquire", duration, "61"), code: invalid, header: duration},
		{name: "acquire 1 s", h: leaseHeader(action, "acquire", duration, "1"), code: invalid, header: duration},
		{name: "acquire 0 s", h: leaseHeader(action, "acquire", duration, "0"), code: invalid, header: duration},
		{name: "acquire -2", h: leaseHeader(action, "acquire", duration, "-2"), code: invalid, header: duration},
		{name: "acquire non-number", h: leaseHeader(action, "acquire", duration, "15s"), code: invalid, header: duration},
		{name: "acquire bad proposed ID", h: leaseHeader(action, "acquire", duration, "15", proposed, "invalid"), code: invalid, header: proposed},
		{name: "acquire bad lease ID", h: leaseHeader(action, "acquire", duration, "15", id, "invalid"), code: invalid, header: id},
		{name: "file acquire infinite", kind: File, h: leaseHeader(action, "acquire", duration, "-1"),
			want: Request{Action: Acquire, Duration: ptr(-1)}},
		{name: "file acquire fixed", kind: File, h: leaseHeader(action, "acquire", duration, "15"), code: invalid, header: duration},
		{name: "file renew", kind: File, h: leaseHeader(action, "renew", id, idA), code: invalid, header: action},
		{name: "renew", h: leaseHeader(action, "renew", id, idA, duration, "30"),
			want: Request{Action: Renew, ID: idA}},
		{name: "renew without ID", h: leaseHeader(action, "renew"), code: missing, header: id},
		{name: "renew bad ID", h: leaseHeader(action, "renew", id, idA+"0"), code: invalid, header: id},
		{name: "release", h: leaseHeader(action, "release", id, idA), want: Request{Action: Release, ID: idA}},
		{name: "release without ID", h: leaseHeader(action, "release"), code: missing, header: id},
		{name: "change", h: leaseHeader(action, "change", id, idA, proposed, idB),
			want: Request{Action: Change, ID: idA, ProposedID: idB}},
		{name: "change without ID", h: leaseHeader(action, "change", proposed, idB), code: missing, header: id},
		{name: "change without proposed ID", h: leaseHeader(action, "change", id, idA), code: missing, header: proposed},
		{name: "change bad proposed ID", h: leaseHeader(action, "change", id, idA, proposed, "x"), code: invalid, header: proposed},
		{name: "break, no period", h: leaseHeader(action, "break"), want: Request{Action: Break}},
		{name: "break, period 0", h: leaseHeader(action, "break", period, "0"), want: Request{Action: Break, BreakPeriod: ptr(0)}},
		{name: "break, period 60", h: leaseHeader(action, "break", period, "60"), want: Request{Action: Break, BreakPeriod: ptr(60)}},
		{name: "break, period 61", h: leaseHeader(action, "break", period, "61"), code: invalid, header: period},
		{name: "break, period -1", h: leaseHeader(action, "break", period, "-1"), code: invalid, header: period},
		{name: "break, period not a number", h: leaseHeader(action, "break", period, "soon"), code: invalid, header: period},
		{name: "file break ignores a period", kind: File, h: leaseHeader(action, "break", period, "61"), want: Request{Action: Break}},
		{name: "container renew", kind: Container, h: leaseHeader(action, "renew", id, idA), want: Request{Action: Renew, ID: idA}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseRequest(tt.h, tt.kind)
			if tt.code != "" {
				wantErr(t, err, 400, tt.code)
				if e, _ := azerr.As(err); e.Details[0] != (azerr.Detail{Name: "HeaderName", Value: tt.header}) {
					t.Fatalf("error names %v, want %s", e.Details, tt.header)
				}
				return
			}
			wantErr(t, err, 0, "")
			if !sameRequest(got, tt.want) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func sameRequest(a, b Request) bool {
	sameInt := func(x, y *int) bool { return x == nil && y == nil || x != nil && y != nil && *x == *y }
	return a.Action == b.Action && a.ID == b.ID && a.ProposedID == b.ProposedID &&
		sameInt(a.Duration, b.Duration) && sameInt(a.BreakPeriod, b.BreakPeriod)
}

func TestParseID(t *testing.T) {
	tests := []struct {
		in   string
		want string // "" for invalid
	}{
		{idA, idA},
		{strings.ToUpper(idA), idA},
		{strings.ReplaceAll(idA, "-", ""), idA},
		{"{" + idA + "}", idA},
		{"(" + idA + ")", idA},
		{" " + idA + " ", idA},
		{"{" + idA + ")", ""},
		{"{" + strings.ReplaceAll(idA, "-", "") + "}", ""},
		{"11111111-1111-4111-8111_111111111111", ""},
		{"1111111-11111-4111-8111-111111111111", ""},
		{"g1111111-1111-4111-8111-111111111111", ""},
		{idA[:35], ""},
		{"", ""},
		{"invalid", ""},
	}
	for _, tt := range tests {
		got, ok := ParseID(tt.in)
		if ok != (tt.want != "") || got != tt.want {
			t.Errorf("ParseID(%q) = %q, %v; want %q", tt.in, got, ok, tt.want)
		}
	}
}

// TestParseIDOfNewGUID: a lease id the server draws parses back unchanged.
func TestParseIDOfNewGUID(t *testing.T) {
	for range 100 {
		id := guid.New()
		if canonical, ok := ParseID(id); !ok || canonical != id {
			t.Fatalf("ParseID(%q) = %q, %v: not canonical", id, canonical, ok)
		}
	}
}

// FuzzParseRequest feeds arbitrary lease headers to ParseRequest and
// applies whatever parses to every state: nothing may panic, failures are
// Azure 4xx errors, successes have the statuses of Lease Blob's
// "Response" section.
func FuzzParseRequest(f *testing.F) {
	f.Add("acquire", "", idA, "15", "", uint8(Blob))
	f.Add("renew", idA, "", "", "", uint8(Container))
	f.Add("change", idA, "{"+idB+"}", "", "", uint8(Share))
	f.Add("release", strings.ToUpper(idA), "", "", "", uint8(File))
	f.Add("break", "", "", "", "60", uint8(Blob))
	f.Add("break", "", "", "", "-0", uint8(File))
	f.Add("BREAK", "x", "y", "99999999999999999999", "+5", uint8(7))
	f.Fuzz(func(t *testing.T, action, id, proposed, duration, period string, kind uint8) {
		k := Kind(kind % 4)
		h := http.Header{}
		for name, value := range map[string]string{
			HeaderAction: action, HeaderID: id, HeaderProposedID: proposed,
			HeaderDuration: duration, HeaderBreakPeriod: period,
		} {
			if value != "" {
				h.Set(name, value)
			}
		}
		req, err := ParseRequest(h, k)
		if err != nil {
			requireStatus(t, err, 400)
			return
		}
		for _, s := range []State{Available, Leased, Breaking, Broken, Expired} {
			if k == File && (s == Breaking || s == Expired) {
				continue
			}
			l := inState(t, s, k)
			_, res, err := Apply(l, req, now, k)
			if err != nil {
				requireStatus(t, err, 409)
				continue
			}
			if res.Status != 200 && res.Status != 201 && res.Status != 202 {
				t.Fatalf("%s on %s: status %d", req.Action, s, res.Status)
			}
			if err := l.CheckWrite(req.ID, now, k); err != nil {
				requireStatus(t, err, 412)
			}
		}
	})
}

func requireStatus(t *testing.T, err error, status int) {
	t.Helper()
	e, ok := azerr.As(err)
	if !ok || e.Status != status {
		t.Fatalf("want an Azure %d error, got %v", status, err)
	}
}
