package file_test

import (
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/share"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

// A tier change leaves the share "pending-from-<previous tier>", the
// previous tier's first letter lower-cased: azure-sdk-for-js's recording
// sdk/storage/storage-file-share/recordings/node/shareclient/recording_setaccesstier.js
// (create, Set Share Properties x-ms-access-tier: Hot, Get Share Properties)
// answers x-ms-access-tier: Hot, x-ms-access-tier-change-time and
// x-ms-access-tier-transition-state: pending-from-transactionOptimized;
// azure-sdk-for-net's ShareClientTests.SetPropertiesAsync and
// ServiceClientTests.ListSharesSegmentAsync_AccessTier expect the same state
// from Get Share Properties and in List Shares' Properties, whose REST page
// (List Shares, Response body) spells one "pending-from-cool". No recording
// shows a transition ending, so the state holds until the next tier change.
func TestShareAccessTierTransition(t *testing.T) {
	_, svc := start(t, lazulitest.Options{InMemory: true})
	sh := newShare(t, svc, "tiers")

	// A new share has its tier and the time it was set, and no transition.
	wantTier(t, svc, sh, "tiers", "TransactionOptimized", "")

	_, err := sh.SetProperties(ctx, &share.SetPropertiesOptions{AccessTier: to.Ptr(share.AccessTierHot)})
	must(t, err)
	wantTier(t, svc, sh, "tiers", "Hot", "pending-from-transactionOptimized")
	// Read again: the transition is stored, not an echo of the change.
	wantTier(t, svc, sh, "tiers", "Hot", "pending-from-transactionOptimized")

	_, err = sh.SetProperties(ctx, &share.SetPropertiesOptions{AccessTier: to.Ptr(share.AccessTierCool)})
	must(t, err)
	wantTier(t, svc, sh, "tiers", "Cool", "pending-from-hot")

	// Setting the tier the share has is no tier change.
	_, err = sh.SetProperties(ctx, &share.SetPropertiesOptions{AccessTier: to.Ptr(share.AccessTierCool)})
	must(t, err)
	wantTier(t, svc, sh, "tiers", "Cool", "pending-from-hot")

	// Created in a tier, a share has no transition either: azure-sdk-for-js's
	// recordings/node/shareclient/recording_create_share_specifying_accesstier_and_listshare.js
	// lists only AccessTier Hot and AccessTierChangeTime.
	hot := svc.NewShareClient("created-hot")
	_, err = hot.Create(ctx, &share.CreateOptions{AccessTier: to.Ptr(share.AccessTierHot)})
	must(t, err)
	wantTier(t, svc, hot, "created-hot", "Hot", "")
}

// wantTier checks a share's tier, change time and transition state as Get
// Share Properties and List Shares (include none) report them.
func wantTier(t *testing.T, svc *service.Client, sh *share.Client, name, tier, state string) {
	t.Helper()
	props, err := sh.GetProperties(ctx, nil)
	must(t, err)
	if got := deref(props.AccessTier); got != tier {
		t.Errorf("Get Share Properties: tier %q, want %q", got, tier)
	}
	if props.AccessTierChangeTime == nil {
		t.Error("Get Share Properties: no x-ms-access-tier-change-time")
	}
	if got := deref(props.AccessTierTransitionState); got != state {
		t.Errorf("Get Share Properties: transition state %q, want %q", got, state)
	}

	pager := svc.NewListSharesPager(&service.ListSharesOptions{Prefix: to.Ptr(name)})
	for pager.More() {
		page, err := pager.NextPage(ctx)
		must(t, err)
		for _, item := range page.Shares {
			if deref(item.Name) != name {
				continue
			}
			p := item.Properties
			if got := deref(p.AccessTier); got != tier {
				t.Errorf("List Shares: tier %q, want %q", got, tier)
			}
			if p.AccessTierChangeTime == nil {
				t.Error("List Shares: no AccessTierChangeTime")
			}
			if got := deref(p.AccessTierTransitionState); got != state {
				t.Errorf("List Shares: transition state %q, want %q", got, state)
			}
			return
		}
	}
	t.Errorf("List Shares: %s not listed", name)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
