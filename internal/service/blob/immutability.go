package blob

import (
	"net/http"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/cond"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// Version-level immutability, as far as the data plane sees it. Each blob
// version (the base blob, a previous version or a snapshot) may carry a
// time-based immutability policy (until an instant, unlocked or locked)
// and a legal hold. While either protects a version, the service refuses
// to delete it or change it in place (Delete Blob, Set Blob Metadata, Put
// Page, Append Block, Seal, Incremental Copy: 409 BlobImmutableDueToLegalHold,
// or BlobImmutableDueToPolicy); replacing the base blob (Put Blob, Put
// Block List, copies) stays allowed, because versioning keeps the
// protected state as a previous version with its policy and hold. Set
// Blob Properties, tags, tiers and leases stay allowed.
//
// Azure enables version-level immutability in the management plane
// (immutableStorageWithVersioning of the account or container), which an
// emulator does not have: Lazuli takes it for the whole account from the
// Blob service properties, as it takes versioning, with the extension
// element <ImmutableStorageWithVersioning><Enabled>true</Enabled>
// </ImmutableStorageWithVersioning>, effective with IsVersioningEnabled
// (Azure requires versioning for it). Without it the operations and
// headers below answer 409 FeatureNotEnabled.

const (
	hdrPolicyUntil = "X-Ms-Immutability-Policy-Until-Date"
	hdrPolicyMode  = "X-Ms-Immutability-Policy-Mode"
	hdrLegalHold   = "X-Ms-Legal-Hold"
)

// policyRequest is a parsed immutability policy: until-date and mode.
type policyRequest struct {
	until time.Time
	mode  string
}

// parsePolicy reads x-ms-immutability-policy-until-date (RFC 1123, in the
// future; the service keeps whole seconds) and -mode (Unlocked, the
// default, or Locked); ok is false when neither is present.
func parsePolicy(h http.Header, now time.Time) (p policyRequest, ok bool, err error) {
	rawUntil, rawMode := h.Get(hdrPolicyUntil), h.Get(hdrPolicyMode)
	if rawUntil == "" && rawMode == "" {
		return p, false, nil
	}
	if rawUntil == "" {
		return p, false, azerr.MissingHeader("x-ms-immutability-policy-until-date")
	}
	until, perr := http.ParseTime(rawUntil)
	if perr != nil || !until.After(now) {
		return p, false, azerr.InvalidHeader("x-ms-immutability-policy-until-date", rawUntil)
	}
	p.until = until.UTC().Truncate(time.Second)
	switch {
	case rawMode == "" || strings.EqualFold(rawMode, blobdata.PolicyUnlocked):
		p.mode = blobdata.PolicyUnlocked
	case strings.EqualFold(rawMode, blobdata.PolicyLocked):
		p.mode = blobdata.PolicyLocked
	default:
		return p, false, azerr.InvalidHeader("x-ms-immutability-policy-mode", rawMode)
	}
	return p, true, nil
}

// parseLegalHold reads x-ms-legal-hold; ok is false when absent.
func parseLegalHold(h http.Header) (hold, ok bool, err error) {
	raw := h.Get(hdrLegalHold)
	switch strings.ToLower(raw) {
	case "":
		return false, false, nil
	case "true":
		return true, true, nil
	case "false":
		return false, true, nil
	}
	return false, false, azerr.InvalidHeader("x-ms-legal-hold", raw)
}

// apply sets the policy on a version. A locked policy may only be
// extended and stays locked.
func (p policyRequest) apply(b *blobdata.Blob) error {
	if b.ImmutableMode == blobdata.PolicyLocked && (p.mode != blobdata.PolicyLocked || p.until.Before(b.ImmutableUntil)) {
		return azerr.Newf(azerr.BlobImmutableDueToPolicy, "A locked immutability policy can only be extended.")
	}
	b.ImmutableUntil, b.ImmutableMode = p.until, p.mode
	return nil
}

// requireImmutability is 409 FeatureNotEnabled unless the account has
// version-level immutability.
func (s *Service) requireImmutability(tx store.Tx, account string) error {
	pol, err := blobdata.LoadPolicy(tx, account, s.versioningDefault)
	if err != nil || pol.ImmutableVersions {
		return err
	}
	return azerr.Newf(azerr.FeatureNotEnabled, "Version-level immutability is not enabled for this account.")
}

// immutableVersions reports whether the request's account has version-level
// immutability, which every container then reports.
func (s *Service) immutableVersions(r *http.Request) (bool, error) {
	var on bool
	err := s.store.View(r.Context(), func(tx store.Tx) error {
		pol, err := blobdata.LoadPolicy(tx, request.Of(r).Account, s.versioningDefault)
		on = pol.ImmutableVersions
		return err
	})
	return on, err
}

// applyWriteImmutability gives a blob a write creates the policy and legal
// hold its request sets (x-ms-immutability-policy-* and x-ms-legal-hold on
// Put Blob, Put Block List, copies and page or append blob creation).
func (s *Service) applyWriteImmutability(tx store.Tx, r *http.Request, rec *blobdata.Blob, now time.Time) error {
	p, hasPolicy, err := parsePolicy(r.Header, now)
	if err != nil {
		return err
	}
	hold, hasHold, err := parseLegalHold(r.Header)
	if err != nil || (!hasPolicy && !hasHold) {
		return err
	}
	if err := s.requireImmutability(tx, request.Of(r).Account); err != nil {
		return err
	}
	if hasPolicy {
		rec.ImmutableUntil, rec.ImmutableMode = p.until, p.mode
	}
	if hasHold {
		rec.LegalHold, rec.LegalHoldSet = hold, true
	}
	if rec.ImmutableMode == "" && !rec.LegalHold {
		return nil
	}
	t := targetOf(r)
	return markProtected(tx, request.Of(r).Account, t.Container, t.Blob)
}

// changeVersion runs one immutability operation on the version a request
// addresses (the base blob, ?versionid= or ?snapshot=) in one Update, and
// stores it under its own key. The ETag does not change.
func (s *Service) changeVersion(r *http.Request, conds conditions, sel blobdata.Selector, change func(b *blobdata.Blob) error) (*blobdata.Blob, error) {
	t := targetOf(r)
	account := request.Of(r).Account
	var out *blobdata.Blob
	err := s.store.Update(r.Context(), func(tx store.Tx) error {
		_, found, err := blobdata.LoadContainer(tx, account, t.Container)
		if err != nil {
			return err
		}
		if !found {
			return containerNotFound()
		}
		if err := s.requireImmutability(tx, account); err != nil {
			return err
		}
		b, err := blobdata.LoadState(tx, account, t.Container, t.Blob, sel, s.now())
		if err != nil || b == nil {
			return firstErr(err, blobNotFound())
		}
		if err := checkWriteConditions(conds, b); err != nil {
			return err
		}
		if err := change(b); err != nil {
			return err
		}
		if b.ImmutableMode != "" || b.LegalHold {
			if err := markProtected(tx, account, t.Container, t.Blob); err != nil {
				return err
			}
		}
		out = b
		return tx.Put(blobdata.RecordKey(account, t.Container, t.Blob, b.LoadedFrom), b.Encode())
	})
	return out, err
}

// setImmutabilityPolicy is Set Blob Immutability Policy; of the
// conditions it takes If-Unmodified-Since only.
func (s *Service) setImmutabilityPolicy(w http.ResponseWriter, r *http.Request) error {
	conds, sel, err := parseSelectedRequest(r, cond.IfUnmodifiedSince)
	if err != nil {
		return err
	}
	p, ok, err := parsePolicy(r.Header, s.now())
	if err != nil {
		return err
	}
	if !ok {
		return azerr.MissingHeader("x-ms-immutability-policy-until-date")
	}
	b, err := s.changeVersion(r, conds, sel, p.apply)
	if err != nil {
		return err
	}
	setImmutabilityHeaders(w.Header(), b)
	return write(w, http.StatusOK)
}

// deleteImmutabilityPolicy is Delete Blob Immutability Policy: an unlocked
// policy goes; a locked one is 409 ImmutabilityPolicyDeleteOnLockedPolicy.
func (s *Service) deleteImmutabilityPolicy(w http.ResponseWriter, r *http.Request) error {
	conds, sel, err := parseSelectedRequest(r, 0)
	if err != nil {
		return err
	}
	_, err = s.changeVersion(r, conds, sel, func(b *blobdata.Blob) error {
		if b.ImmutableMode == blobdata.PolicyLocked {
			return azerr.New(azerr.ImmutabilityPolicyDeleteOnLockedPolicy)
		}
		b.ImmutableUntil, b.ImmutableMode = time.Time{}, ""
		return nil
	})
	if err != nil {
		return err
	}
	return write(w, http.StatusOK)
}

// setLegalHold is Set Blob Legal Hold (x-ms-legal-hold true or false).
func (s *Service) setLegalHold(w http.ResponseWriter, r *http.Request) error {
	conds, sel, err := parseSelectedRequest(r, 0)
	if err != nil {
		return err
	}
	hold, ok, err := parseLegalHold(r.Header)
	if err != nil {
		return err
	}
	if !ok {
		return azerr.MissingHeader("x-ms-legal-hold")
	}
	b, err := s.changeVersion(r, conds, sel, func(b *blobdata.Blob) error {
		b.LegalHold, b.LegalHoldSet = hold, true
		return nil
	})
	if err != nil {
		return err
	}
	w.Header().Set(hdrLegalHold, boolText(b.LegalHold))
	return write(w, http.StatusOK)
}

// setImmutabilityHeaders writes a version's policy and legal hold, for
// Get Blob, Get Blob Properties and Set Blob Immutability Policy.
func setImmutabilityHeaders(h http.Header, b *blobdata.Blob) {
	if b.ImmutableMode != "" {
		h.Set(hdrPolicyUntil, httpTime(b.ImmutableUntil))
		h.Set(hdrPolicyMode, b.ImmutableMode)
	}
	if b.LegalHoldSet {
		h.Set(hdrLegalHold, boolText(b.LegalHold))
	}
}

// writeImmutabilityElements writes the policy (include=immutabilitypolicy)
// and legal hold (include=legalhold) of a listed blob.
func writeImmutabilityElements(x *xmlWriter, b *blobdata.Blob, p listParams) {
	if p.include["immutabilitypolicy"] && b.ImmutableMode != "" {
		x.Elem("ImmutabilityPolicyUntilDate", httpTime(b.ImmutableUntil))
		x.Elem("ImmutabilityPolicyMode", b.ImmutableMode)
	}
	if p.include["legalhold"] && b.LegalHoldSet {
		x.Elem("LegalHold", boolText(b.LegalHold))
	}
}
