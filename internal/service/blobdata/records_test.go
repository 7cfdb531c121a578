package blobdata

import (
	"reflect"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/frame/accesspolicy"
	"github.com/lazuli-storage/lazuli/internal/rule/contentprops"
	"github.com/lazuli-storage/lazuli/internal/rule/etag"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
	"github.com/lazuli-storage/lazuli/internal/rule/metadata"
)

func TestBlobRecordRoundTrip(t *testing.T) {
	now := time.Unix(1700000000, 123456789).UTC()
	cases := []*Blob{
		{Type: BlockBlob, Committed: true, ETag: etag.FromTime(now), Created: now},
		{Type: BlockBlob, HasUncommitted: true, BlockIDLen: 8, ETag: 42, Created: now},
		{Type: BlockBlob, Committed: true, HasUncommitted: true, BlockIDLen: 64, ETag: 7, Created: now, Tier: "Cool",
			Props:    contentprops.Props{Type: "text/plain", Encoding: "gzip", Language: "en", Disposition: "inline", CacheControl: "no-cache", MD5: []byte("0123456789abcdef")},
			Metadata: metadata.Set{{Name: "a", Value: "1"}, {Name: "b", Value: ""}},
			Lease:    lease.Lease{ID: "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa", Duration: 15, Expires: now.Add(15 * time.Second)}},
	}
	cases[2].SetSegments([]Segment{{Extent: "e1", Length: 10, BlockID: "b1"}, {Extent: "e2", Offset: 5, Length: 3, BlockID: "b2"}})
	for i, want := range cases {
		got, err := DecodeBlob(want.Encode())
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("case %d:\n got %+v\nwant %+v", i, got, want)
		}
		light, err := DecodeBlobProperties(want.Encode())
		if err != nil || light.segments != nil || light.Size != want.Size {
			t.Fatalf("case %d: properties-only decode kept segments or lost the size", i)
		}
	}
	segs, err := cases[2].Segments()
	if err != nil || len(segs) != 2 || segs[1].Offset != 5 || cases[2].Size != 13 {
		t.Fatalf("segments %+v size %d (%v)", segs, cases[2].Size, err)
	}
	// Unknown tags from a later format are skipped; garbage is an error.
	extra := append(cases[0].Encode(), 99, 2, 'x', 'y')
	if _, err := DecodeBlob(extra); err != nil {
		t.Fatalf("unknown tag: %v", err)
	}
	for _, bad := range [][]byte{nil, {2}, {recordFormat, btagCore, 50}} {
		if _, err := DecodeBlob(bad); err == nil {
			t.Fatalf("decoded garbage %v", bad)
		}
	}
}

func TestContainerRecordRoundTrip(t *testing.T) {
	now := time.Unix(1700000000, 0).UTC()
	start := now.Add(time.Hour)
	want := &Container{ETag: 99, Created: now, Public: AccessContainer, Metadata: metadata.Set{{Name: "k", Value: "v"}},
		Lease: lease.Lease{ID: "x", Duration: lease.Infinite, BreakEnds: now},
		ACL:   []accesspolicy.Identifier{{ID: "p1", Start: &start, Permission: "rl"}, {ID: "p2"}}}
	got, err := DecodeContainer(want.encode())
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v (%v)\nwant %+v", got, err, want)
	}
}

func TestRefDeltaNets(t *testing.T) {
	d := RefDelta{}
	d.Add("a")
	d.Drop("a")
	d.Add("b")
	d.AddSegments([]Segment{{Extent: "c"}, {Extent: "c"}})
	d.DropSegments([]Segment{{Extent: "b"}})
	if d["a"] != 0 || d["b"] != 0 || d["c"] != 2 {
		t.Fatalf("delta %v", d)
	}
}
