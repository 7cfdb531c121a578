package blob

import (
	"net/http"
	"net/url"
	"reflect"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/etag"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

func TestIdentityRecordRoundTrip(t *testing.T) {
	now := time.Unix(1700000000, 123456700).UTC()
	rec := &blobdata.Blob{Type: blobdata.BlockBlob, Committed: true, ETag: etag.FromTime(now), Created: now, Tier: "Archive"}
	rec.IdentityState = blobdata.IdentityState{
		VersionID: blobdata.Stamp(now),
		DeletedAt: now, Purge: now.Add(48 * time.Hour),
		Copy: &blobdata.CopyState{ID: "id", Source: "http://x/y", Total: 10, Started: now, Ends: now.Add(time.Second),
			Aborted: now.Add(time.Millisecond)},
		TierChanged: now,
		Rehydrate:   &blobdata.Rehydration{Target: "Cool", Priority: priorityHigh, Ends: now.Add(time.Second)},
	}
	got, err := blobdata.DecodeBlob(rec.Encode())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, rec) {
		t.Fatalf("round trip\n got %+v\nwant %+v", got.IdentityState, rec.IdentityState)
	}
	// A record without identity data (as the first format wrote them)
	// decodes with none.
	plain := &blobdata.Blob{Type: blobdata.BlockBlob, Committed: true, ETag: 5, Created: now}
	got, err = blobdata.DecodeBlob(plain.Encode())
	if err != nil || !reflect.DeepEqual(got.IdentityState, blobdata.IdentityState{}) {
		t.Fatalf("plain record: %+v %v", got.IdentityState, err)
	}
}

func TestCopyStatus(t *testing.T) {
	t0 := time.Unix(1700000000, 0).UTC()
	cases := []struct {
		name     string
		c        blobdata.CopyState
		now      time.Time
		status   string
		progress string
		ended    time.Time
	}{
		{"instant", blobdata.CopyState{Total: 7, Started: t0, Ends: t0}, t0, blobdata.CopySuccess, "7/7", t0},
		{"pending", blobdata.CopyState{Total: 7, Started: t0, Ends: t0.Add(time.Second)}, t0, blobdata.CopyPending, "0/7", time.Time{}},
		{"completed later", blobdata.CopyState{Total: 7, Started: t0, Ends: t0.Add(time.Second)}, t0.Add(time.Second), blobdata.CopySuccess, "7/7", t0.Add(time.Second)},
		{"aborted", blobdata.CopyState{Total: 7, Started: t0, Ends: t0.Add(time.Hour), Aborted: t0.Add(time.Second)}, t0.Add(2 * time.Hour), blobdata.CopyAborted, "0/7", t0.Add(time.Second)},
	}
	for _, tc := range cases {
		st, ended := tc.c.Status(tc.now)
		if st != tc.status || !ended.Equal(tc.ended) || tc.c.Progress(tc.now) != tc.progress {
			t.Errorf("%s: %s %v %s", tc.name, st, ended, tc.c.Progress(tc.now))
		}
	}
}

func TestTierAt(t *testing.T) {
	t0 := time.Unix(1700000000, 0).UTC()
	pending := &blobdata.Rehydration{Target: "Cool", Priority: priorityStandard, Ends: t0.Add(rehydrateStandard)}
	cases := []struct {
		name                string
		b                   blobdata.Blob
		now                 time.Time
		tier, archiveStatus string
		inferred, archived  bool
		changed             time.Time
	}{
		{"inferred", blobdata.Blob{}, t0, "Hot", "", true, false, time.Time{}},
		{"set", blobdata.Blob{Tier: "Cold", IdentityState: blobdata.IdentityState{TierChanged: t0}}, t0, "Cold", "", false, false, t0},
		{"archived", blobdata.Blob{Tier: "Archive"}, t0, "Archive", "", false, true, time.Time{}},
		{"rehydrating", blobdata.Blob{Tier: "Archive", IdentityState: blobdata.IdentityState{Rehydrate: pending}}, t0,
			"Archive", "rehydrate-pending-to-cool", false, true, time.Time{}},
		{"rehydrated", blobdata.Blob{Tier: "Archive", IdentityState: blobdata.IdentityState{Rehydrate: pending}}, t0.Add(time.Minute),
			"Cool", "", false, false, pending.Ends},
	}
	for _, tc := range cases {
		tier, inferred, status := tc.b.TierAt(tc.now)
		if tier != tc.tier || inferred != tc.inferred || status != tc.archiveStatus ||
			tc.b.ArchivedAt(tc.now) != tc.archived || !tc.b.TierChangedAt(tc.now).Equal(tc.changed) {
			t.Errorf("%s: %s %v %q", tc.name, tier, inferred, status)
		}
	}
}

func TestChangeTier(t *testing.T) {
	t0 := time.Unix(1700000000, 0).UTC()
	b := &blobdata.Blob{Type: blobdata.BlockBlob, Committed: true}
	if st, err := changeTier(b, "Archive", priorityStandard, t0); err != nil || st != http.StatusOK || b.Tier != "Archive" {
		t.Fatalf("to archive: %d %v", st, err)
	}
	if st, err := changeTier(b, "Hot", priorityStandard, t0); err != nil || st != http.StatusAccepted || b.Rehydrate == nil {
		t.Fatalf("rehydrate: %d %v", st, err)
	}
	if _, err := changeTier(b, "Cool", priorityStandard, t0); err == nil {
		t.Fatal("changed the target of a rehydration")
	}
	if _, err := changeTier(b, "Hot", priorityHigh, t0); err != nil || b.Rehydrate.Ends != t0.Add(rehydrateHigh) {
		t.Fatalf("priority raise: %v %v", err, b.Rehydrate.Ends)
	}
	if st, err := changeTier(b, "Cool", priorityStandard, t0.Add(time.Hour)); err != nil || st != http.StatusOK ||
		b.Tier != "Cool" || b.Rehydrate != nil || !b.TierChanged.Equal(t0.Add(time.Hour)) {
		t.Fatalf("after rehydration: %d %v %+v", st, err, b)
	}
}

func TestParseStampAndSelector(t *testing.T) {
	for in, want := range map[string]string{
		"2024-01-02T03:04:05.1234567Z":   "2024-01-02T03:04:05.1234567Z",
		"2024-01-02T03:04:05Z":           "2024-01-02T03:04:05.0000000Z",
		"2024-01-02T03:04:05.123456789Z": "2024-01-02T03:04:05.1234567Z",
		"2024-01-02T05:04:05.1+02:00":    "2024-01-02T03:04:05.1000000Z",
		"yesterday":                      "",
		"":                               "",
		"2024-13-02T03:04:05.1234567Z":   "",
	} {
		got, ok := blobdata.ParseStamp(in)
		if got != want || ok != (want != "") {
			t.Errorf("parseStamp(%q) = %q %v, want %q", in, got, ok, want)
		}
	}
	sel := func(q string) (blobdata.Selector, error) {
		return parseSelector(&http.Request{URL: &url.URL{RawQuery: q}})
	}
	if s, err := sel("snapshot=2024-01-02T03:04:05Z"); err != nil || s.Snapshot != "2024-01-02T03:04:05.0000000Z" || s.Base() {
		t.Fatalf("snapshot selector %+v %v", s, err)
	}
	for _, bad := range []string{"snapshot=x", "versionid=", "snapshot=2024-01-02T03:04:05Z&versionid=2024-01-02T03:04:05Z"} {
		if _, err := sel(bad); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

func TestMarkers(t *testing.T) {
	for _, it := range []blobItem{
		{name: "plain"},
		{name: "a/b", ord: ordSnapshot + "2024-01-02T03:04:05.0000000Z"},
		{name: "x\u00e9!s!y", ord: ordBase},
		{name: markerPrefix + "looks like a marker"},
	} {
		name, ord := splitMarker(it.marker())
		if name != it.name || ord != it.ord {
			t.Errorf("marker of %+v splits to %q %q", it, name, ord)
		}
	}
}

// FuzzSplitMarker: any marker a client sends is either a name or a state
// position, never a panic, and markers the service makes round-trip.
func FuzzSplitMarker(f *testing.F) {
	f.Add("name", "")
	f.Add("dir/blob", ordVersion+"2024-01-02T03:04:05.0000000Z")
	f.Add(markerPrefix+"AAAA", ordBase)
	f.Add("", ordDeleted)
	f.Fuzz(func(t *testing.T, name, ord string) {
		splitMarker(name)
		if containsNUL(ord) {
			return
		}
		gotName, gotOrd := splitMarker(blobItem{name: name, ord: ord}.marker())
		if gotName != name || gotOrd != ord {
			t.Fatalf("(%q, %q) came back as (%q, %q)", name, ord, gotName, gotOrd)
		}
	})
}

// FuzzParseStamp: a parsed stamp is canonical (parsing it again gives it
// back) and sorts as its instant does.
func FuzzParseStamp(f *testing.F) {
	f.Add("2024-01-02T03:04:05.1234567Z")
	f.Add("2024-01-02T03:04:05Z")
	f.Add("2024-01-02T05:04:05.1+02:00")
	f.Add("garbage")
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := blobdata.ParseStamp(s)
		if !ok {
			return
		}
		again, ok := blobdata.ParseStamp(got)
		if !ok || again != got || len(got) != len(blobdata.StampLayout) {
			t.Fatalf("%q parsed to %q, then %q", s, got, again)
		}
	})
}

func containsNUL(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return true
		}
	}
	return false
}

// FuzzParseCopySource: any x-ms-copy-source is a 4xx or a source; a local
// one names a valid container and blob.
func FuzzParseCopySource(f *testing.F) {
	f.Add("http://127.0.0.1:10000/devstoreaccount1/c1/dir/b%20x?snapshot=2024-01-02T03:04:05Z")
	f.Add("http://devstoreaccount1.blob.localhost:10000/c1/b?sv=2021&sig=abc")
	f.Add("https://example.com/file.txt")
	f.Add("http://127.0.0.1:10000/devstoreaccount1/blob-in-root")
	f.Add("::not a url")
	s := &Service{authn: &auth.Authenticator{Accounts: auth.DevAccounts()}}
	f.Fuzz(func(t *testing.T, raw string) {
		r := &http.Request{Host: "127.0.0.1:10000", Header: http.Header{"X-Ms-Copy-Source": {raw}}}
		src, err := s.parseCopySource(r)
		if err != nil {
			if _, ok := azerr.As(err); !ok {
				t.Fatalf("%q: %v is not an Azure error", raw, err)
			}
			return
		}
		if src.local && (validContainerName(src.t.Container) != nil || validBlobName(src.t.Blob) != nil) {
			t.Fatalf("%q: local source %+v", raw, src.t)
		}
	})
}
