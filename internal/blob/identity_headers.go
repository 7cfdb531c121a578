package blob

import (
	"net/http"
	"time"
)

// setWriteResult writes what a write that may create a version answers:
// ETag, Last-Modified and x-ms-version-id.
func setWriteResult(h http.Header, b *blobRecord) {
	setBlobETag(h, b)
	setIf(h, "x-ms-version-id", b.VersionID)
}

// setIdentityHeaders writes the version and copy properties that Get Blob
// and Get Blob Properties return. current says whether b is the base blob
// (the current version) rather than a snapshot or a previous version.
func setIdentityHeaders(h http.Header, b *blobRecord, current bool, now time.Time) {
	if b.VersionID != "" {
		h.Set("x-ms-version-id", b.VersionID)
		h.Set("x-ms-is-current-version", boolText(current))
	}
	c := b.Copy
	if c == nil {
		return
	}
	status, ended := c.status(now)
	h.Set("x-ms-copy-id", c.ID)
	h.Set("x-ms-copy-source", c.Source)
	h.Set("x-ms-copy-status", status)
	h.Set("x-ms-copy-progress", c.progress(now))
	if !ended.IsZero() {
		h.Set("x-ms-copy-completion-time", httpTime(ended))
	}
	if status == copyAborted {
		h.Set("x-ms-copy-status-description", abortedDescription)
	}
	if c.Incremental {
		h.Set("x-ms-incremental-copy", "true")
		h.Set("x-ms-copy-destination-snapshot", c.DestSnapshot)
	}
}

// abortedDescription is x-ms-copy-status-description of an aborted copy.
const abortedDescription = "The copy was aborted by Abort Copy Blob."

// setTierHeaders writes the access tier properties of Get Blob Properties.
func setTierHeaders(h http.Header, b *blobRecord, now time.Time) {
	tier, inferred, archiveStatus := b.tierAt(now)
	h.Set("x-ms-access-tier", tier)
	if inferred {
		h.Set("x-ms-access-tier-inferred", "true")
	}
	if changed := b.tierChangedAt(now); !changed.IsZero() {
		h.Set("x-ms-access-tier-change-time", httpTime(changed))
	}
	if archiveStatus != "" {
		h.Set("x-ms-archive-status", archiveStatus)
		h.Set("x-ms-rehydrate-priority", b.Rehydrate.Priority)
	}
}

func boolText(v bool) string {
	if v {
		return "true"
	}
	return "false"
}
