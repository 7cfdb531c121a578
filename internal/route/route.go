// Package route matches a request to an operation with a declarative table
// per service, keyed on method, resource level, restype, comp and
// distinguishing headers. Azure's comp= matrix is large; each service's table
// is its documentation.
package route

import (
	"net/http"

	"github.com/lazuli-storage/lazuli/internal/azerr"
	"github.com/lazuli-storage/lazuli/internal/request"
)

// Level is how deep a request path goes, as the service defines it (for
// Blob: service, container, blob).
type Level int

// Common levels; services may define their own.
const (
	Service Level = iota
	Container
	Object
)

// Handler serves one operation; errors are rendered by the caller.
type Handler func(w http.ResponseWriter, r *http.Request) error

// Rule is one row of a route table.
type Rule struct {
	Op      string // operation name, for logs
	Method  string
	Level   Level
	Restype string // required ?restype= value ("" = must be absent)
	Comp    string // required ?comp= value ("" = must be absent)
	// Header, when set, must be present (non-empty) on the request; rules
	// with a Header are tried before rules without one.
	Header string
	// NoHeader, when set, must be absent.
	NoHeader string
	// AnyRestype accepts the rule whatever ?restype= says.
	AnyRestype bool
	Handle     Handler
}

// Table is a service's route table.
type Table []Rule

// Match finds the rule for r at level and records its operation in the
// request's Info (request.Route), whose hook may answer instead of the rule. No rule for the method and level
// gives 405 UnsupportedHttpVerb when another method would match, otherwise
// 400 InvalidQueryParameterValue naming comp (or restype).
func (t Table) Match(r *http.Request, level Level) (*Rule, error) {
	rule, err := t.match(r, level)
	if err != nil {
		return nil, err
	}
	if err := request.Route(r.Context(), rule.Op); err != nil {
		return nil, err
	}
	return rule, nil
}

func (t Table) match(r *http.Request, level Level) (*Rule, error) {
	q := r.URL.Query()
	restype, comp := q.Get("restype"), q.Get("comp")
	var fallback *Rule
	methodSeen := false
	for i := range t {
		rule := &t[i]
		if rule.Level != level || (!rule.AnyRestype && rule.Restype != restype) || rule.Comp != comp {
			continue
		}
		if rule.Method != r.Method {
			continue
		}
		methodSeen = true
		if rule.NoHeader != "" && r.Header.Get(rule.NoHeader) != "" {
			continue
		}
		if rule.Header != "" {
			if r.Header.Get(rule.Header) != "" {
				return rule, nil
			}
			continue
		}
		if fallback == nil {
			fallback = rule
		}
	}
	if fallback != nil {
		return fallback, nil
	}
	if methodSeen {
		return nil, azerr.New(azerr.InvalidHeaderValue)
	}
	for i := range t {
		if t[i].Level == level && t[i].Comp == comp && (t[i].AnyRestype || t[i].Restype == restype) {
			return nil, azerr.New(azerr.UnsupportedHttpVerb)
		}
	}
	if comp != "" {
		return nil, azerr.InvalidQuery("comp", comp, "")
	}
	if restype != "" {
		return nil, azerr.InvalidQuery("restype", restype, "")
	}
	return nil, azerr.New(azerr.UnsupportedHttpVerb)
}
