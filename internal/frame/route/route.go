// Package route matches a request to an operation with a declarative table
// per service, keyed on method, resource level, restype, comp and
// distinguishing headers (their presence or value) and query parameters.
// Azure's comp= matrix is large; each service's table is its documentation.
// Each row also declares who may call its operation (Rule.Access), which
// Authorize applies: handlers never choose a permission.
package route

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
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
	// When lists the headers and query parameters that tell the row apart
	// from the others of its method, level, restype and comp: each must
	// hold. A row with conditions is specific (see Lookup for the order).
	When []Cond
	// AnyRestype accepts the rule whatever ?restype= says.
	AnyRestype bool
	// SecondaryOnly marks an operation the service offers only on the
	// account's secondary endpoint (Get Service Stats): on the primary it
	// is 400 InvalidQueryParameterValue, as Azure answers.
	SecondaryOnly bool
	// Access is who may call the operation: the SAS permissions, resource
	// type, public access and key-only rules it needs. Every row declares
	// one; a row without is refused (500) and fails the route tests.
	Access *auth.Need
	Handle Handler
}

// Cond is one more condition on a request a rule may need: a header or
// query parameter present, absent, or equal to a value (ignoring case).
type Cond struct {
	Name   string // header or query parameter name
	Query  bool   // Name is a query parameter
	Value  string // required value, ignoring case ("" for any non-empty)
	Absent bool   // Name must be absent or empty
}

// HeaderIs holds when header name equals value, ignoring case.
func HeaderIs(name, value string) Cond { return Cond{Name: name, Value: value} }

// HeaderSet holds when header name is present and not empty.
func HeaderSet(name string) Cond { return Cond{Name: name} }

// HeaderUnset holds when header name is absent or empty.
func HeaderUnset(name string) Cond { return Cond{Name: name, Absent: true} }

// QueryIs holds when query parameter name equals value, ignoring case.
func QueryIs(name, value string) Cond { return Cond{Name: name, Query: true, Value: value} }

// QuerySet holds when query parameter name is present and not empty.
func QuerySet(name string) Cond { return Cond{Name: name, Query: true} }

func (c Cond) holds(q url.Values, h http.Header) bool {
	v := h.Get(c.Name)
	if c.Query {
		v = q.Get(c.Name)
	}
	switch {
	case c.Absent:
		return v == ""
	case c.Value != "":
		return strings.EqualFold(v, c.Value)
	}
	return v != ""
}

// specific reports whether the rule has any condition (on presence, value
// or absence) beyond method, level, restype and comp: such rules are tried
// before the rules without.
func (r *Rule) specific() bool { return len(r.When) > 0 }

// conditionsHold reports whether the request meets the rule's header and
// query conditions.
func (r *Rule) conditionsHold(q url.Values, h http.Header) bool {
	for _, c := range r.When {
		if !c.holds(q, h) {
			return false
		}
	}
	return true
}

// Table is a service's route table.
type Table []Rule

// Match finds the rule for r at level and records its operation in the
// request's Info (request.Route), whose hook may answer instead of the rule. No rule for the method and level
// gives 405 UnsupportedHttpVerb when another method would match, otherwise
// 400 InvalidQueryParameterValue naming comp (or restype).
func (t Table) Match(r *http.Request, level Level) (*Rule, error) {
	rule, err := t.Lookup(r.Method, level, r.URL.Query(), r.Header)
	if err != nil {
		return nil, err
	}
	if err := request.Route(r.Context(), rule.Op, rule.Access); err != nil {
		return nil, err
	}
	if rule.SecondaryOnly {
		onSecondary := *rule
		onSecondary.Handle = secondaryOnly(rule.Comp, rule.Handle)
		return &onSecondary, nil
	}
	return rule, nil
}

// secondaryOnly wraps the handler of an operation served only on the
// secondary endpoint. The check runs with the handler, after the caller
// was authorized, so that an unauthorized caller learns nothing more.
func secondaryOnly(comp string, handle Handler) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		if info := request.From(r.Context()); info == nil || !info.Secondary {
			return azerr.InvalidQuery("comp", comp, "")
		}
		return handle(w, r)
	}
}

// Lookup finds the rule for a request of method at level with query q and
// headers h, recording nothing: Match for requests, and for the parts of a
// batch that are not requests of their own. Among the rows of the method,
// level, restype and comp, the first specific row (one with conditions,
// whatever they are) whose conditions hold wins; only when none does, the
// first row without conditions answers. Table order is the tie-break, so a
// table lists a narrower row before a broader one.
func (t Table) Lookup(method string, level Level, q url.Values, h http.Header) (*Rule, error) {
	restype, comp := q.Get("restype"), q.Get("comp")
	var fallback *Rule
	methodSeen := false
	for i := range t {
		rule := &t[i]
		if rule.Level != level || (!rule.AnyRestype && rule.Restype != restype) || rule.Comp != comp {
			continue
		}
		if rule.Method != method {
			continue
		}
		methodSeen = true
		if !rule.conditionsHold(q, h) {
			continue
		}
		if rule.specific() {
			return rule, nil
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
