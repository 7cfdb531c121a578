// Package request carries what the shared middleware learned about an
// incoming Azure Storage request (its id, target account, resource path,
// service version and caller identity) to the service that handles it.
package request

import (
	"context"
	"net/http"
	"time"

	"github.com/lazuli-storage/lazuli/internal/rule/auth"
)

// Info is the middleware's view of one request.
type Info struct {
	ID       string // x-ms-request-id
	Account  string
	Path     string // decoded resource path after the account, "" or starting with "/"
	Version  string // x-ms-version as sent (echoed), or the default version
	Identity *auth.Identity
	Start    time.Time
	// PathStyle is true when the account came from the path, not the host.
	PathStyle bool
	// Secondary is true when the request named the account's secondary
	// endpoint ("<account>-secondary"), which Lazuli serves from the same
	// data as the primary.
	Secondary bool
	// Op is the operation the route table matched (its Rule.Op), for logs,
	// metrics and fault rules; "" until the request is routed.
	Op string
	// Access is what the matched route row declares its caller needs
	// (route.Authorize applies it); nil until the request is routed.
	Access *auth.Need
	// Routed, when set by the middleware, runs once the operation is known
	// and before its handler; an error it returns is the request's answer.
	Routed func(op string) error
	// Chain is the middleware chain serving the request. A Blob Batch
	// serves each sub-request through it again, so that a sub-request is
	// authenticated, versioned, given its request id, logged, routed and
	// authorized exactly as a request of its own is.
	Chain http.Handler
	// Parent is the Info of the batch a sub-request belongs to (nil for a
	// request of its own): a sub-request without a version takes the
	// batch's.
	Parent *Info
}

// Route records the operation a route table matched for the request in
// ctx, and what its caller needs, and runs the middleware's Routed hook.
// Only the first call counts.
func Route(ctx context.Context, op string, access *auth.Need) error {
	info := From(ctx)
	if info == nil || info.Op != "" {
		return nil
	}
	info.Op, info.Access = op, access
	if info.Routed != nil {
		return info.Routed(op)
	}
	return nil
}

type ctxKey struct{}

// With returns ctx carrying info.
func With(ctx context.Context, info *Info) context.Context {
	return context.WithValue(ctx, ctxKey{}, info)
}

// From returns the Info of the request, or nil outside the middleware.
func From(ctx context.Context) *Info {
	info, _ := ctx.Value(ctxKey{}).(*Info)
	return info
}

// Of returns the Info of r; it never returns nil (an empty Info outside the
// middleware keeps handlers simple in unit tests).
func Of(r *http.Request) *Info {
	if info := From(r.Context()); info != nil {
		return info
	}
	return &Info{}
}
