package blob

import (
	"net/http"
	"time"

	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// setWriteResult writes what a write that may create a version answers:
// ETag, Last-Modified and x-ms-version-id.
func setWriteResult(h http.Header, b *blobdata.Blob) {
	setBlobETag(h, b)
	setIf(h, "X-Ms-Version-Id", b.VersionID)
}

// setIdentityHeaders writes the version and copy properties that Get Blob
// and Get Blob Properties return. current says whether b is the base blob
// (the current version) rather than a snapshot or a previous version.
func setIdentityHeaders(h http.Header, b *blobdata.Blob, current bool, now time.Time) {
	if b.VersionID != "" {
		h.Set("X-Ms-Version-Id", b.VersionID)
		h.Set("X-Ms-Is-Current-Version", boolText(current))
	}
	c := b.Copy
	if c == nil {
		return
	}
	status, ended := c.Status(now)
	h.Set("X-Ms-Copy-Id", c.ID)
	h.Set("X-Ms-Copy-Source", c.Source)
	h.Set("X-Ms-Copy-Status", status)
	h.Set("X-Ms-Copy-Progress", c.Progress(now))
	if !ended.IsZero() {
		h.Set("X-Ms-Copy-Completion-Time", httpTime(ended))
	}
	if status == blobdata.CopyAborted {
		h.Set("X-Ms-Copy-Status-Description", abortedDescription)
	}
	if c.Incremental {
		h.Set("X-Ms-Incremental-Copy", "true")
		h.Set("X-Ms-Copy-Destination-Snapshot", c.DestSnapshot)
	}
}

// abortedDescription is x-ms-copy-status-description of an aborted copy.
const abortedDescription = "The copy was aborted by Abort Copy Blob."

// setTierHeaders writes the access tier properties of Get Blob Properties.
func setTierHeaders(h http.Header, b *blobdata.Blob, now time.Time) {
	tier, inferred, archiveStatus := b.TierAt(now)
	h.Set("X-Ms-Access-Tier", tier)
	if inferred {
		h.Set("X-Ms-Access-Tier-Inferred", "true")
	}
	if changed := b.TierChangedAt(now); !changed.IsZero() {
		h.Set("X-Ms-Access-Tier-Change-Time", httpTime(changed))
	}
	if archiveStatus != "" {
		h.Set("X-Ms-Archive-Status", archiveStatus)
		h.Set("X-Ms-Rehydrate-Priority", b.Rehydrate.Priority)
	}
}

func boolText(v bool) string {
	if v {
		return "true"
	}
	return "false"
}
