package file

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/etag"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
	"github.com/lazuli-storage/lazuli/internal/rule/metadata"
)

// Share quota limits in GiB: 1 to 100 TiB, 5 TiB unless asked.
const (
	minQuota     = 1
	maxQuota     = 102400
	defaultQuota = 5120
)

const gib = 1 << 30

func parseQuota(h http.Header) (int64, bool, error) {
	raw := strings.TrimSpace(h.Get("X-Ms-Share-Quota"))
	if raw == "" {
		return 0, false, nil
	}
	q, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || q < minQuota || q > maxQuota {
		return 0, false, azerr.InvalidHeader("x-ms-share-quota", raw)
	}
	return q, true, nil
}

// accessTiers are the tiers a share may have, by their lower-case names.
var accessTiers = map[string]string{
	"transactionoptimized": "TransactionOptimized", "hot": "Hot", "cool": "Cool", "premium": "Premium",
}

func parseAccessTier(h http.Header) (string, error) {
	raw := strings.TrimSpace(h.Get("X-Ms-Access-Tier"))
	if raw == "" {
		return "", nil
	}
	tier, ok := accessTiers[strings.ToLower(raw)]
	if !ok {
		return "", azerr.InvalidHeader("x-ms-access-tier", raw)
	}
	return tier, nil
}

// tierTransitionState is a share's x-ms-access-tier-transition-state (and
// List Shares' AccessTierTransitionState): "pending-from-" and the tier the
// last tier change left, its first letter lower-cased as the service spells
// it ("pending-from-transactionOptimized" in azure-sdk-for-js's recorded
// shareclient setAccessTier; "pending-from-cool" on the List Shares REST
// page). No recording shows a transition ending, so it stays until the next
// tier change; a share whose tier never changed has none.
func tierTransitionState(sh *shareRecord) string {
	if sh.TierFrom == "" {
		return ""
	}
	return "pending-from-" + strings.ToLower(sh.TierFrom[:1]) + sh.TierFrom[1:]
}

func (s *Service) createShare(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	if err := readOnlySnapshot(t); err != nil {
		return err
	}
	quota, set, err := parseQuota(r.Header)
	if err != nil {
		return err
	}
	if !set {
		quota = defaultQuota
	}
	meta, err := metadata.Parse(r.Header)
	if err != nil {
		return err
	}
	tier, err := parseAccessTier(r.Header)
	if err != nil {
		return err
	}
	if tier == "" {
		tier = "TransactionOptimized"
	}
	protocols, squash, err := s.parseShareProtocols(r, t.Account)
	if err != nil {
		return err
	}
	premium, err := s.parsePremiumRequest(r.Header, t.Account)
	if err != nil {
		return err
	}
	now := s.now()
	var sh *shareRecord
	err = s.store.Update(r.Context(), func(tx store.Tx) error {
		if old, exists, err := loadShare(tx, t.Account, t.Share, ""); err != nil {
			return err
		} else if exists {
			return shareExists(old)
		}
		tick := etag.Next(now, 0)
		sh = &shareRecord{ETag: tick, Created: now, Quota: quota, Metadata: meta,
			AccessTier: tier, TierChanged: now, Protocols: protocols, RootSquash: squash}
		premium.apply(sh)
		if err := saveShare(tx, t.Account, t.Share, "", sh); err != nil {
			return err
		}
		return createRoot(tx, t.Account, t.Share, tick, now, protocols == protocolNFS)
	})
	if err != nil {
		return err
	}
	s.recentlyDeleted.Created(t.Account, t.Share)
	setETag(w.Header(), sh.ETag)
	w.WriteHeader(http.StatusCreated)
	return nil
}

// createRoot writes a new share's root directory with the default
// permission.
func createRoot(tx store.Tx, account, share string, tick etag.Tick, now time.Time, nfs bool) error {
	key, err := storePermission(tx, account, share, defaultPermission, formatSDDL)
	if err != nil {
		return err
	}
	root := &node{Dir: true, ETag: tick, SMB: smbProps{Attrs: attrDirectory, Created: now, Written: now,
		Changed: now, PermKey: key}}
	if nfs {
		// The root of an NFS share: root's, rwxr-xr-x.
		root.NFS = &nfsProps{Owner: "0", Group: "0", Mode: 0o755}
	}
	return saveNode(tx, account, share, "", filePath{}, root)
}

func (s *Service) getShareProperties(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	now := s.now()
	sh, err := s.viewShare(r, t, now)
	if err != nil {
		return err
	}
	h := w.Header()
	setETag(h, sh.ETag)
	sh.Metadata.WriteHeaders(h)
	h.Set("X-Ms-Share-Quota", strconv.FormatInt(sh.Quota, 10))
	h.Set("X-Ms-Access-Tier", sh.AccessTier)
	if !sh.TierChanged.IsZero() {
		h.Set("X-Ms-Access-Tier-Change-Time", sh.TierChanged.Format(http.TimeFormat))
	}
	if state := tierTransitionState(sh); state != "" {
		h.Set("X-Ms-Access-Tier-Transition-State", state)
	}
	setProtocolHeaders(h, sh)
	s.setPremiumHeaders(h, t.Account, sh)
	setLeaseHeaders(h, sh.Lease, now, lease.Share)
	w.WriteHeader(http.StatusOK)
	return nil
}

// setLeaseHeaders writes x-ms-lease-status, -state and (while leased)
// -duration.
func setLeaseHeaders(h http.Header, l lease.Lease, now time.Time, k lease.Kind) {
	h.Set("X-Ms-Lease-Status", l.Status(now))
	h.Set("X-Ms-Lease-State", string(l.State(now)))
	if d := l.DurationType(now); d != "" {
		h.Set("X-Ms-Lease-Duration", d)
	}
}

func (s *Service) setShareProperties(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	if err := readOnlySnapshot(t); err != nil {
		return err
	}
	quota, quotaSet, err := parseQuota(r.Header)
	if err != nil {
		return err
	}
	tier, err := parseAccessTier(r.Header)
	if err != nil {
		return err
	}
	squash, err := s.parseSquashChange(r, t)
	if err != nil {
		return err
	}
	premium, err := s.parsePremiumRequest(r.Header, t.Account)
	if err != nil {
		return err
	}
	now := s.now()
	sh, err := s.updateShare(r, t, now, func(sh *shareRecord) {
		premium.apply(sh)
		if quotaSet {
			sh.Quota = quota
		}
		if squash != "" {
			sh.RootSquash = squash
		}
		if tier != "" && tier != sh.AccessTier {
			sh.TierFrom, sh.AccessTier, sh.TierChanged = sh.AccessTier, tier, now
		}
	})
	if err != nil {
		return err
	}
	setETag(w.Header(), sh.ETag)
	w.Header().Set("X-Ms-Share-Quota", strconv.FormatInt(sh.Quota, 10))
	w.WriteHeader(http.StatusOK)
	return nil
}

func (s *Service) setShareMetadata(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	if err := readOnlySnapshot(t); err != nil {
		return err
	}
	meta, err := metadata.Parse(r.Header)
	if err != nil {
		return err
	}
	sh, err := s.updateShare(r, t, s.now(), func(sh *shareRecord) { sh.Metadata = meta })
	if err != nil {
		return err
	}
	setETag(w.Header(), sh.ETag)
	w.WriteHeader(http.StatusOK)
	return nil
}

// viewShare reads the request's share or share snapshot for a read. A
// lease ID, when sent, must name the share's active lease.
func (s *Service) viewShare(r *http.Request, t *target, now time.Time) (*shareRecord, error) {
	var sh *shareRecord
	err := s.store.View(r.Context(), func(tx store.Tx) error {
		var err error
		if sh, err = shareFor(tx, t); err != nil {
			return err
		}
		return sh.Lease.CheckRead(r.Header.Get(lease.HeaderID), now, lease.Share)
	})
	return sh, err
}

// updateShare applies change to the live share and gives it a new ETag.
// While the share is leased the request must carry the lease ID, as for
// Delete Share: Azure answers Set Share Properties (quota or tier) and Set
// Share Metadata without it 412 LeaseIdMissing (azure-sdk-for-js
// storage-file-share test/public/leaseclient.spec.ts, "LeaseClient with
// ShareClient": "setProperties", "setMetadata", "setQuota", run live).
func (s *Service) updateShare(r *http.Request, t *target, now time.Time, change func(*shareRecord)) (*shareRecord, error) {
	var sh *shareRecord
	err := s.store.Update(r.Context(), func(tx store.Tx) error {
		var err error
		if sh, err = shareFor(tx, t); err != nil {
			return err
		}
		if err := sh.Lease.CheckWrite(r.Header.Get(lease.HeaderID), now, lease.Share); err != nil {
			return err
		}
		change(sh)
		sh.ETag = etag.Next(now, sh.ETag)
		return saveShare(tx, t.Account, t.Share, "", sh)
	})
	return sh, err
}

// getShareStats answers Get Share Stats. A lease ID it carries must name
// the share's lease, as on every share read (azure-sdk-for-js
// leaseclient.spec.ts "getStatistics": 412 with another one).
func (s *Service) getShareStats(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	sh, err := s.viewShare(r, t, s.now())
	if err != nil {
		return err
	}
	setETag(w.Header(), sh.ETag)
	x := newXML()
	x.Open("ShareStats")
	x.Elem("ShareUsageBytes", strconv.FormatInt(sh.Usage, 10))
	x.Close("ShareStats")
	x.Send(w, http.StatusOK)
	return nil
}
