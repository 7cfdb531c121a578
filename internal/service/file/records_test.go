package file

import (
	"reflect"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/frame/accesspolicy"
	"github.com/lazuli-storage/lazuli/internal/rule/contentprops"
	"github.com/lazuli-storage/lazuli/internal/rule/etag"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
	"github.com/lazuli-storage/lazuli/internal/rule/metadata"
	"github.com/lazuli-storage/lazuli/internal/service/file/ranges"
	"github.com/lazuli-storage/lazuli/internal/service/file/smbstate"
)

func TestNodeRoundTrip(t *testing.T) {
	at := time.Date(2024, 5, 6, 7, 8, 9, 100, time.UTC)
	n := &node{Name: "File.txt", ID: 1 << 62, ParentID: 9, ETag: etag.FromTime(at), Size: 4 << 40,
		SMB:      smbProps{Attrs: attrArchive | attrHidden, Created: at, Written: at.Add(time.Second), Changed: at.Add(2 * time.Second), PermKey: "1*2"},
		Metadata: metadata.Set{{Name: "a", Value: "1"}, {Name: "b", Value: ""}},
		Props:    contentprops.Props{Type: "text/plain", Encoding: "gzip", Language: "en", Disposition: "inline", CacheControl: "no-cache", MD5: make([]byte, 16)},
		Lease:    lease.Lease{ID: "aaaaaaaa-0000-4000-8000-000000000001", Duration: lease.Infinite},
		Copy:     copyState{ID: "c", Source: "http://x/y", Status: "success", Copied: 3, Total: 3, Completed: at},
		Opens: []smbstate.Open{{HandleID: 5, SessionID: 6, ClientIP: "1.2.3.4:5", ClientName: "pc", OpenTime: at,
			Access: smbstate.Read | smbstate.Write, Share: smbstate.ShareRead}},
		DeletePending: true,
	}
	got, err := decodeNode(n.encode())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, n) {
		t.Fatalf("node round trip:\n got %+v\nwant %+v", got, n)
	}
	dir := &node{Dir: true, ID: 3}
	if got, err := decodeNode(dir.encode()); err != nil || !got.Dir || got.ID != 3 {
		t.Fatalf("directory round trip: %+v %v", got, err)
	}
}

func TestShareRoundTrip(t *testing.T) {
	at := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	s := &shareRecord{ETag: etag.FromTime(at), Created: at, Quota: 100, Usage: 12345, Metadata: metadata.Set{{Name: "k", Value: "v"}},
		Lease:      lease.Lease{ID: "bbbbbbbb-0000-4000-8000-000000000002", Duration: 30, Expires: at.Add(30 * time.Second)},
		ACL:        []accesspolicy.Identifier{{ID: "p", Start: &at, Expiry: instant(at.Add(time.Hour)), Permission: "rl"}, {ID: "q"}},
		AccessTier: "Cool", TierChanged: at, TierFrom: "TransactionOptimized", Protocols: "SMB"}
	got, err := decodeShare(s.encode())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, s) {
		t.Fatalf("share round trip:\n got %+v\nwant %+v", got, s)
	}
}

func TestSegmentRoundTrip(t *testing.T) {
	seg := ranges.Segment{Start: 7 << 30, Length: 4096, Extent: "ext-1", ExtentOffset: 12}
	got, err := decodeSegment(rangeKey("acct", "share", "", 42, seg.Start), encodeSegment(seg))
	if err != nil || got != seg {
		t.Fatalf("segment round trip: %+v %v", got, err)
	}
}
