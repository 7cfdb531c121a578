// Package request carries what the shared middleware learned about an
// incoming Azure Storage request (its id, target account, resource path,
// service version and caller identity) to the service that handles it.
package request

import (
	"context"
	"net/http"
	"time"

	"github.com/lazuli-storage/lazuli/internal/auth"
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
