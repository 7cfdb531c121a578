package server

import (
	"github.com/lazuli-storage/lazuli/internal/fetchguard"
	"log/slog"

	"github.com/lazuli-storage/lazuli/internal/auth"
	"github.com/lazuli-storage/lazuli/internal/clock"
	"github.com/lazuli-storage/lazuli/internal/extent"
	"github.com/lazuli-storage/lazuli/internal/locks"
	"github.com/lazuli-storage/lazuli/internal/store"
)

// Deps is what the host gives every service when it builds it.
type Deps struct {
	Store    store.Store
	Extents  extent.Engine
	Clock    clock.Clock
	Accounts *auth.Accounts
	Logger   *slog.Logger
	// Loose ignores headers of unsupported features instead of rejecting
	// the request (--loose).
	Loose bool
	// OAuth accepts Bearer tokens when set; services that authenticate
	// requests of their own (batch sub-requests, copy sources) need it.
	OAuth *auth.OAuth
	// ByteLocks are the byte-range locks SMB clients hold, which the File
	// service's REST reads and writes honour; nil means none are taken.
	ByteLocks *locks.Table
	// CopySources is the policy on the hosts copy sources may be fetched
	// from (--copySourceAllow); nil allows every host.
	CopySources *fetchguard.Guard
	// BlobVersioning is blob versioning's default for accounts that have
	// not set it (--blobVersioning).
	BlobVersioning bool
}
