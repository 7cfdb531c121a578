package file

import (
	"net/http"
	"strconv"

	"github.com/lazuli-storage/lazuli/internal/base/record"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// Premium (FileStorage) share properties, for the accounts --premiumAccounts
// names. Azure provisions a premium share's performance from its quota (the
// provisioned v1 model): Get Share Properties and List Shares report the
// IOPS, ingress, egress and bandwidth it gets, and the time from which the
// quota may be lowered. A premium share may also have paid bursting
// (x-ms-share-paid-bursting-enabled, -max-iops, -max-bandwidth-mibps on
// Create and Set Share Properties), and an NFS share chooses whether its
// snapshots show as a virtual directory
// (x-ms-enable-snapshot-virtual-directory-access). The azfile SDK's recorded
// TestPremiumShareBandwidth, TestPremiumAccountListShares,
// TestShareCreatePaidBursting, TestShareSetPropertiesPaidBursting and the
// snapshot virtual directory tests read them back. Lazuli stores and
// reports them; it does not throttle.

// stagPremium is the share record field of the premium properties.
const stagPremium = 7

// premiumShare is what a premium share's record keeps besides the quota.
type premiumShare struct {
	PaidBursting    bool
	PaidMaxIops     int64
	PaidMaxMibps    int64
	SnapshotDirsSet bool // the NFS share chose SnapshotDirs
	SnapshotDirs    bool
}

func (p *premiumShare) encode(e *record.Encoder) {
	if *p == (premiumShare{}) {
		return
	}
	e.Field(stagPremium, func(e *record.Encoder) {
		e.Bool(p.PaidBursting)
		e.Varint(p.PaidMaxIops)
		e.Varint(p.PaidMaxMibps)
		e.Bool(p.SnapshotDirsSet)
		e.Bool(p.SnapshotDirs)
	})
}

func (p *premiumShare) decode(d *record.Decoder) {
	p.PaidBursting, p.PaidMaxIops, p.PaidMaxMibps = d.Bool(), d.Varint(), d.Varint()
	p.SnapshotDirsSet, p.SnapshotDirs = d.Bool(), d.Bool()
}

// premiumRequest is the premium headers of Create or Set Share Properties;
// nil fields were not sent.
type premiumRequest struct {
	paidBursting      *bool
	maxIops, maxMibps *int64
	snapshotDirs      *bool
}

// parsePremiumRequest reads the premium share headers. They apply to
// premium accounts only (400 InvalidHeaderValue elsewhere), and the
// snapshot directory setting to NFS shares.
func (s *Service) parsePremiumRequest(h http.Header, account string) (premiumRequest, error) {
	var p premiumRequest
	var err error
	if p.paidBursting, err = optionalBool(h, "x-ms-share-paid-bursting-enabled"); err != nil {
		return p, err
	}
	if p.maxIops, err = optionalCount(h, "x-ms-share-paid-bursting-max-iops"); err != nil {
		return p, err
	}
	if p.maxMibps, err = optionalCount(h, "x-ms-share-paid-bursting-max-bandwidth-mibps"); err != nil {
		return p, err
	}
	if p.snapshotDirs, err = optionalBool(h, "x-ms-enable-snapshot-virtual-directory-access"); err != nil {
		return p, err
	}
	if !s.premium[account] {
		for _, name := range []string{"x-ms-share-paid-bursting-enabled", "x-ms-share-paid-bursting-max-iops",
			"x-ms-share-paid-bursting-max-bandwidth-mibps"} {
			if v := h.Get(name); v != "" {
				return p, azerr.Newf(azerr.InvalidHeaderValue, "%s applies to premium file shares only.", name).
					With("HeaderName", name).With("HeaderValue", v)
			}
		}
	}
	return p, nil
}

// apply sets what the request sent on a share's premium properties.
func (p premiumRequest) apply(sh *shareRecord) {
	if p.paidBursting != nil {
		sh.premium.PaidBursting = *p.paidBursting
	}
	if p.maxIops != nil {
		sh.premium.PaidMaxIops = *p.maxIops
	}
	if p.maxMibps != nil {
		sh.premium.PaidMaxMibps = *p.maxMibps
	}
	if p.snapshotDirs != nil && sh.Protocols == protocolNFS {
		sh.premium.SnapshotDirsSet, sh.premium.SnapshotDirs = true, *p.snapshotDirs
	}
}

// provisioned is what the provisioned v1 model gives a premium share of
// quotaGiB: baseline IOPS 3000 + 1 per GiB (at most 102,400), ingress 40 +
// 0.04 per GiB and egress 60 + 0.06 per GiB MiB/s, rounded up, and their
// sum as the bandwidth.
func provisioned(quotaGiB int64) (iops, ingress, egress, bandwidth int64) {
	iops = min(3000+quotaGiB, 102400)
	ingress = 40 + (4*quotaGiB+99)/100
	egress = 60 + (6*quotaGiB+99)/100
	return iops, ingress, egress, ingress + egress
}

// premiumValues lists a share's premium properties as name, value pairs
// in the service's order, with the header names of Get Share Properties
// and the element names of List Shares; none for a standard account.
func (s *Service) premiumValues(account string, sh *shareRecord) [][3]string {
	var out [][3]string
	add := func(header, elem, value string) { out = append(out, [3]string{header, elem, value}) }
	if sh.Protocols == protocolNFS {
		add("X-Ms-Enable-Snapshot-Virtual-Directory-Access", "EnableSnapshotVirtualDirectoryAccess",
			strconv.FormatBool(!sh.premium.SnapshotDirsSet || sh.premium.SnapshotDirs))
	}
	if !s.premium[account] {
		return out
	}
	iops, ingress, egress, bandwidth := provisioned(sh.Quota)
	add("X-Ms-Share-Provisioned-Iops", "ProvisionedIops", strconv.FormatInt(iops, 10))
	add("X-Ms-Share-Provisioned-Ingress-Mbps", "ProvisionedIngressMBps", strconv.FormatInt(ingress, 10))
	add("X-Ms-Share-Provisioned-Egress-Mbps", "ProvisionedEgressMBps", strconv.FormatInt(egress, 10))
	add("X-Ms-Share-Provisioned-Bandwidth-Mibps", "ProvisionedBandwidthMiBps", strconv.FormatInt(bandwidth, 10))
	// Lazuli lets the quota go down at any time: since the share exists.
	add("X-Ms-Share-Next-Allowed-Quota-Downgrade-Time", "NextAllowedQuotaDowngradeTime", sh.Created.Format(http.TimeFormat))
	add("X-Ms-Share-Paid-Bursting-Enabled", "PaidBurstingEnabled", strconv.FormatBool(sh.premium.PaidBursting))
	if sh.premium.PaidBursting {
		add("X-Ms-Share-Paid-Bursting-Max-Iops", "PaidBurstingMaxIops", strconv.FormatInt(sh.premium.PaidMaxIops, 10))
		add("X-Ms-Share-Paid-Bursting-Max-Bandwidth-Mibps", "PaidBurstingMaxBandwidthMibps", strconv.FormatInt(sh.premium.PaidMaxMibps, 10))
	}
	return out
}

// setPremiumHeaders writes the premium properties of Get Share Properties.
func (s *Service) setPremiumHeaders(h http.Header, account string, sh *shareRecord) {
	for _, v := range s.premiumValues(account, sh) {
		h.Set(v[0], v[2])
	}
}

// writePremiumElements writes the premium properties of a listed share.
func (s *Service) writePremiumElements(x *xmlWriter, account string, sh *shareRecord) {
	for _, v := range s.premiumValues(account, sh) {
		x.Elem(v[1], v[2])
	}
}

// optionalBool reads a true/false header; nil when absent.
func optionalBool(h http.Header, name string) (*bool, error) {
	raw := h.Get(name)
	if raw == "" {
		return nil, nil
	}
	v, err := strconv.ParseBool(raw)
	if err != nil {
		return nil, azerr.InvalidHeader(name, raw)
	}
	return &v, nil
}

// optionalCount reads a non-negative integer header; nil when absent.
func optionalCount(h http.Header, name string) (*int64, error) {
	raw := h.Get(name)
	if raw == "" {
		return nil, nil
	}
	v, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || v < 0 {
		return nil, azerr.InvalidHeader(name, raw)
	}
	return &v, nil
}
