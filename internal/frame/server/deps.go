package server

import (
	"log/slog"

	"github.com/lazuli-storage/lazuli/internal/base/clock"
	"github.com/lazuli-storage/lazuli/internal/engine/extent"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/changefeed"
	"github.com/lazuli-storage/lazuli/internal/frame/liveness"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/rule/fetchguard"
	"github.com/lazuli-storage/lazuli/internal/rule/locks"
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
	// Liveness judges whether the node holding an SMB open still runs;
	// nil judges every node alive.
	Liveness *liveness.Registry
	// Changes is rung after File service requests that may write, for
	// the SMB endpoint's CHANGE_NOTIFY; nil rings nothing.
	Changes *changefeed.Feed
	// CopySources is the policy on the hosts copy sources may be fetched
	// from (--copySourceAllow); nil allows every host.
	CopySources *fetchguard.Guard
	// CrossAccountCopyRate is --crossAccountCopyRate, in MiB/s (0: off).
	CrossAccountCopyRate float64
	// BlobVersioning is blob versioning's default for accounts that have
	// not set it (--blobVersioning).
	BlobVersioning bool
	// EncryptionScopes are the Blob encryption scopes every account has
	// (--encryptionScopes).
	EncryptionScopes []string
	// PremiumAccounts are the accounts that are premium page blob ones
	// (--premiumAccounts).
	PremiumAccounts []string
	// HNSAccounts are the accounts with a hierarchical namespace
	// (--hnsAccounts).
	HNSAccounts []string
}
