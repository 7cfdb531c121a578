// Package fault holds the fault rules of the test-control API: rules that
// make chosen requests fail the way the real service sometimes does (an
// error status with its Azure error code), answer slowly, or lose their
// connection in the middle of the response body, so that users can see
// their retry policies at work.
//
// A rule selects requests by service, account, operation name (the Op of
// the service's route table), and resource path prefix; among the requests
// it selects it fires on every Nth, or with a probability, and at most
// Count times. The first rule that fires decides the request's fate. The
// middleware asks once per request, after routing (so that the operation
// is known) and before the handler runs.
package fault

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// Rule is one fault rule as the admin API reads and lists it. Empty
// selectors match everything.
type Rule struct {
	ID int `json:"id"`
	// Selectors.
	Service   string `json:"service,omitempty"`   // blob, queue, table, file
	Account   string `json:"account,omitempty"`   // account name
	Operation string `json:"operation,omitempty"` // route table Op, e.g. PutBlob, GetMessages
	Prefix    string `json:"prefix,omitempty"`    // resource path after the account, e.g. /container/dir/
	// Firing: every Nth selected request (0 or 1: each), or with a
	// probability in (0, 1]; at most Count times (0: no limit).
	Every       int     `json:"every,omitempty"`
	Probability float64 `json:"probability,omitempty"`
	Count       int     `json:"count,omitempty"`
	// Action: an error answer (Status and/or Code), a delay before the
	// request runs (Latency, which may precede an error), or a connection
	// closed part-way through the response body (Close).
	Status  int      `json:"status,omitempty"`
	Code    string   `json:"code,omitempty"`
	Message string   `json:"message,omitempty"`
	Latency Duration `json:"latency,omitempty"`
	Close   bool     `json:"close,omitempty"`
	// Counters, reported by List.
	Seen     int `json:"seen"`     // requests the selectors matched
	Injected int `json:"injected"` // times the rule fired
}

// Duration is a time.Duration written in JSON as Go's duration text ("2s").
type Duration time.Duration

// MarshalText writes the duration as "1.5s".
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// UnmarshalText reads "1.5s", "250ms", and so on.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

// defaultCodes is the Azure error code a rule with only a status answers.
var defaultCodes = map[int]string{
	http.StatusInternalServerError: azerr.InternalError,
	http.StatusServiceUnavailable:  azerr.ServerBusy,
	http.StatusPreconditionFailed:  azerr.ConditionNotMet,
	http.StatusRequestTimeout:      azerr.OperationTimedOut,
}

// Validate checks a rule as given to the admin API and fills in the status
// or code the other implies.
func (r *Rule) Validate() error {
	r.Prefix = normalizePrefix(r.Prefix)
	switch {
	case r.Every < 0 || r.Count < 0:
		return errors.New("every and count must not be negative")
	case r.Probability < 0 || r.Probability > 1:
		return errors.New("probability must be between 0 and 1")
	case r.Every > 1 && r.Probability > 0:
		return errors.New("give every or probability, not both")
	case r.Latency < 0:
		return errors.New("latency must not be negative")
	case r.Close && (r.Status != 0 || r.Code != ""):
		return errors.New("a rule closes the connection or answers an error, not both")
	case r.Status != 0 && (r.Status < 400 || r.Status > 599):
		return fmt.Errorf("status %d is not an error status (400-599)", r.Status)
	}
	if r.Status != 0 && r.Code == "" {
		code, ok := defaultCodes[r.Status]
		if !ok {
			return fmt.Errorf("status %d needs an Azure error code (code)", r.Status)
		}
		r.Code = code
	}
	if r.Code != "" && r.Status == 0 {
		e, known := azerr.Lookup(r.Code)
		if !known {
			return fmt.Errorf("error code %q is not in the catalogue: give its status too", r.Code)
		}
		r.Status = e.Status
	}
	if r.Code == "" && !r.Close && r.Latency == 0 {
		return errors.New("a rule needs an action: status and/or code, latency, or close")
	}
	return nil
}

// normalizePrefix makes a resource prefix start with "/", as request paths do.
func normalizePrefix(p string) string {
	if p == "" || strings.HasPrefix(p, "/") {
		return p
	}
	return "/" + p
}

// Request is what a rule selects on.
type Request struct {
	Service, Account, Operation, Path string
}

// Action is what a fired rule does to a request.
type Action struct {
	RuleID  int
	Latency time.Duration
	Err     *azerr.Error // nil: no error answer
	Close   bool
}

// Set is the server's list of rules. The zero value is empty and ready.
type Set struct {
	mu     sync.Mutex
	rules  []*Rule
	nextID int
	rand   func() float64 // nil: math/rand/v2
}

// Add validates r and appends it, returning it with its ID.
func (s *Set) Add(r Rule) (Rule, error) {
	if err := r.Validate(); err != nil {
		return Rule{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	r.ID, r.Seen, r.Injected = s.nextID, 0, 0
	s.rules = append(s.rules, &r)
	return r, nil
}

// List returns a copy of every rule with its counters, in order.
func (s *Set) List() []Rule {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Rule, len(s.rules))
	for i, r := range s.rules {
		out[i] = *r
	}
	return out
}

// Remove deletes the rule with id and reports whether it existed.
func (s *Set) Remove(id int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, r := range s.rules {
		if r.ID == id {
			s.rules = append(s.rules[:i], s.rules[i+1:]...)
			return true
		}
	}
	return false
}

// Clear deletes every rule.
func (s *Set) Clear() {
	s.mu.Lock()
	s.rules = nil
	s.mu.Unlock()
}

// Empty reports whether there are no rules, so the middleware can skip
// the lookup cheaply.
func (s *Set) Empty() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.rules) == 0
}

// Match counts req against every rule that selects it and returns the
// action of the first that fires, or nil.
func (s *Set) Match(req Request) *Action {
	s.mu.Lock()
	defer s.mu.Unlock()
	var fired *Rule
	for _, r := range s.rules {
		if !r.selects(req) {
			continue
		}
		r.Seen++
		if fired == nil && s.fires(r) {
			r.Injected++
			fired = r
		}
	}
	if fired == nil {
		return nil
	}
	return fired.action()
}

func (r *Rule) selects(req Request) bool {
	return (r.Service == "" || strings.EqualFold(r.Service, req.Service)) &&
		(r.Account == "" || r.Account == req.Account) &&
		(r.Operation == "" || strings.EqualFold(r.Operation, req.Operation)) &&
		strings.HasPrefix(req.Path, r.Prefix)
}

// fires decides, after r.Seen counted this request, whether r acts on it.
func (s *Set) fires(r *Rule) bool {
	if r.Count > 0 && r.Injected >= r.Count {
		return false
	}
	if r.Every > 1 {
		return r.Seen%r.Every == 0
	}
	if r.Probability > 0 {
		draw := rand.Float64
		if s.rand != nil {
			draw = s.rand
		}
		return draw() < r.Probability
	}
	return true
}

func (r *Rule) action() *Action {
	a := &Action{RuleID: r.ID, Latency: time.Duration(r.Latency), Close: r.Close}
	if r.Code != "" {
		e, _ := azerr.Lookup(r.Code)
		e.Code, e.Status = r.Code, r.Status
		if r.Message != "" {
			e.Message = r.Message
		}
		if e.Message == "" {
			e.Message = "Lazuli injected this error (fault rule " + fmt.Sprint(r.ID) + ")."
		}
		a.Err = e
	}
	return a
}
