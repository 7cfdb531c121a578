package app_test

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

// TestAuthorizationMatrix sends every row of every service's route table,
// over real sockets, as every kind of caller: Shared Key, a wrong key,
// anonymous (on a private container, and for Blob on containers of each
// public access level), an account SAS and a service SAS with each single
// permission letter and with the exact set the operation needs, an account
// SAS of the wrong resource type or service, expired, not yet valid, from
// the wrong address and over the wrong protocol, and an expired service SAS. Each answer must be the
// one the "Create an account SAS" and "Create a service SAS" pages give
// (authz_expected_test.go): denied with the right status and code, or not
// denied by authorization (any other answer). A row without a declaration,
// or whose operation the expected table does not know, fails.
func TestAuthorizationMatrix(t *testing.T) {
	ops := &opLog{byID: map[string]string{}}
	in := lazulitest.Start(t, lazulitest.Options{InMemory: true, AccessLog: slog.New(ops)})
	m := &matrix{in: in, ops: ops, client: &http.Client{}}
	var requests, rows int
	for _, svc := range []string{"blob", "queue", "table", "file"} {
		seen := map[string]bool{}
		svcRows, svcRequests := 0, 0
		for i, row := range lazulitest.RouteTable(t, svc) {
			seen[row.Op] = true
			want, ok := expected[svc][row.Op]
			switch {
			case row.Access == nil:
				t.Errorf("%s row %d (%s %s): no Access declared", svc, i, row.Method, row.Op)
				continue
			case !ok:
				t.Errorf("%s row %d (%s %s): the expected table does not know this operation", svc, i, row.Method, row.Op)
				continue
			}
			svcRows++
			svcRequests += m.checkRow(t, svc, row, want)
		}
		for op := range expected[svc] {
			if !seen[op] {
				t.Errorf("%s: the expected table names %s, which no route row serves", svc, op)
			}
		}
		t.Logf("%s: %d route rows, %d requests", svc, svcRows, svcRequests)
		rows, requests = rows+svcRows, requests+svcRequests
	}
	t.Logf("all: %d route rows, %d requests (rows x caller kinds)", rows, requests)
}

// opLog is an access-log handler that remembers each request's operation.
type opLog struct {
	mu   sync.Mutex
	byID map[string]string
}

func (l *opLog) Enabled(context.Context, slog.Level) bool { return true }
func (l *opLog) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *opLog) WithGroup(string) slog.Handler            { return l }
func (l *opLog) Handle(_ context.Context, r slog.Record) error {
	var id, op string
	r.Attrs(func(a slog.Attr) bool {
		switch a.Key {
		case "request_id":
			id = a.Value.String()
		case "operation":
			op = a.Value.String()
		}
		return true
	})
	l.mu.Lock()
	l.byID[id] = op
	l.mu.Unlock()
	return nil
}

func (l *opLog) op(id string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.byID[id]
}

// outcome is the answer a caller should get: allowed (anything but an
// authorization denial), or denied with status and one of codes.
type outcome struct {
	allowed bool
	status  int
	codes   []string
	// either accepts allowed as well as the denial: a create that finds
	// its target existing needs w instead of c.
	either bool
}

func allow() outcome { return outcome{allowed: true} }

func deny(status int, codes ...string) outcome { return outcome{status: status, codes: codes} }

// authDenial reports whether an answer is an authentication or
// authorization refusal.
func authDenial(svc string, status int, code string) bool {
	switch status {
	case http.StatusUnauthorized:
		return true
	case http.StatusForbidden:
		return strings.HasPrefix(code, "Authorization") || code == "AuthenticationFailed"
	case http.StatusNotFound:
		// Blob hides private containers from anonymous readers; in the
		// Table service ResourceNotFound is an entity that does not exist.
		return svc == "blob" && code == "ResourceNotFound"
	}
	return false
}

func (o outcome) check(svc string, status int, code string) bool {
	if !authDenial(svc, status, code) {
		return o.allowed || o.either
	}
	if o.allowed && !o.either {
		return false
	}
	if status != o.status {
		return false
	}
	for _, c := range o.codes {
		if c == code {
			return true
		}
	}
	return false
}
