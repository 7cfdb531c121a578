package blobdata

import (
	"bytes"
	"encoding/hex"
	"reflect"
	"strings"
	"testing"

	"time"

	"github.com/lazuli-storage/lazuli/internal/base/record"
	"github.com/lazuli-storage/lazuli/internal/frame/accesspolicy"
	"github.com/lazuli-storage/lazuli/internal/rule/contentprops"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
	"github.com/lazuli-storage/lazuli/internal/rule/metadata"
	"github.com/lazuli-storage/lazuli/internal/rule/posixacl"
)

// goldenBlob is a blob record that sets every stored field.
func goldenBlob() *Blob {
	at := time.Date(2024, 5, 6, 7, 8, 9, 123456789, time.UTC)
	b := &Blob{Type: PageBlob, Committed: true, HasUncommitted: true, BlockIDLen: 16, ETag: 1 << 40, Created: at,
		Props: contentprops.Props{Type: "text/plain", Encoding: "gzip", Language: "en", Disposition: "inline",
			CacheControl: "no-cache", MD5: []byte("0123456789abcdef")},
		Metadata: metadata.Set{{Name: "alpha", Value: "1"}, {Name: "beta", Value: ""}},
		Lease:    lease.Lease{ID: "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa", Duration: 15, Expires: at.Add(15 * time.Second)},
		Tier:     "Cool", SequenceNumber: -7, Sealed: true, Tags: TagSet{{"k", "v"}, {"x", "y z"}},
		IdentityState: IdentityState{VersionID: "2024-05-06T07:08:09.1234567Z", DeletedAt: at.Add(time.Hour),
			Purge: at.Add(48 * time.Hour),
			Copy: &CopyState{ID: "copy-1", Source: "https://src/c/b", Total: 4096, Started: at, Ends: at.Add(time.Minute),
				Incremental: true, SourceBlob: "acct/c/b", SourceSnapshot: "snap-1", DestSnapshot: "snap-2"},
			TierChanged: at.Add(2 * time.Hour),
			Rehydrate:   &Rehydration{Target: "Hot", Priority: "High", Ends: at.Add(3 * time.Hour)}},
	}
	b.SetSegments([]Segment{{Extent: "e1", Length: 10, BlockID: "b1"}, {Extent: "e2", Offset: 5, Length: 3}})
	return b
}

// goldenContainer is a container record that sets every stored field.
func goldenContainer() *Container {
	at := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	start := at.Add(time.Hour)
	return &Container{ETag: 99, Created: at, Public: AccessBlob, Deleting: true, Metadata: metadata.Set{{Name: "k", Value: "v"}},
		Lease: lease.Lease{ID: "x", Duration: lease.Infinite, BreakEnds: at},
		ACL:   []accesspolicy.Identifier{{ID: "p1", Start: &start, Expiry: &at, Permission: "rl"}, {ID: "p2"}}}
}

func goldenBlock() *Block {
	return &Block{ID: "block-0001", Extent: "ext-9", Size: 1 << 22, Staged: -3}
}

// Records as an earlier version of this package wrote them (hex of the
// golden records above). They must decode to the same values and the
// records must encode to the same bytes, or data already stored changes
// meaning.
const (
	storedBlob      = "01011502030000010000000000aa9cd8d5f7a4eacc2f1a1002340a746578742f706c61696e04677a697002656e06696e6c696e65086e6f2d63616368651030313233343536373839616263646566030f0205616c706861013104626574610004302461616161616161612d616161612d346161612d386161612d6161616161616161616161611eaaf4e6b6e7a5eacc2f00050f02026531000a026231026532050300060504436f6f6c10010d110101120b02016b017601780379207a071d1c323032342d30352d30365430373a30383a30392e313233343536375a0812aa9c9de1bdf6ebcc2faa9cc8ff9befb8cd2f094406636f70792d310f68747470733a2f2f7372632f632f628040aa9cd8d5f7a4eacc2faafc92dab6a8eacc2f000108616363742f632f6206736e61702d3106736e61702d320a1caa9ce2ec83c8edcc2f0103486f740448696768aa9ca7f8c999efcc2f"
	storedContainer = "010113000000000000006380e8f9dff6a4eacc2f0101020501016b0176030d0178010080e8f9dff6a4eacc2f07190202703103d2bfc4e30c00b287c4e30c0002726c0270320000"
	storedBlock     = "01056578742d398080800205"

	// storedContainerBefore7 is goldenContainer as written while the
	// container's policies were field ctagACL; such containers must read
	// the same.
	storedContainerBefore7 = "010113000000000000006380e8f9dff6a4eacc2f0101020501016b0176030d0178010080e8f9dff6a4eacc2f0421020270310180e8beebbcf6ebcc2f0180e8f9dff6a4eacc2f02726c027032000000"
)

func TestStoredRecordsKeepTheirEncoding(t *testing.T) {
	blob, container, block := goldenBlob(), goldenContainer(), goldenBlock()
	for _, c := range []struct {
		what    string
		encoded []byte
		stored  string
	}{
		{"blob", blob.Encode(), storedBlob},
		{"container", container.encode(), storedContainer},
		{"block", block.Encode(), storedBlock},
	} {
		if got := hex.EncodeToString(c.encoded); got != c.stored {
			t.Errorf("%s encodes to\n%s\nwant\n%s", c.what, got, c.stored)
		}
	}

	if got, err := DecodeBlob(fromHex(storedBlob)); err != nil || !reflect.DeepEqual(got, blob) {
		t.Errorf("blob decoded to %+v (%v)\nwant %+v", got, err, blob)
	}
	for _, stored := range []string{storedContainer, storedContainerBefore7} {
		if got, err := DecodeContainer(fromHex(stored)); err != nil || !reflect.DeepEqual(got, container) {
			t.Errorf("container %s decoded to %+v (%v)\nwant %+v", stored, got, err, container)
		}
	}
	key := BlockKey("acct", "c", "b", block.ID)
	if got, err := DecodeBlock(key, fromHex(storedBlock)); err != nil || got != *block {
		t.Errorf("block decoded to %+v (%v)\nwant %+v", got, err, *block)
	}
}

// fromHex decodes one of the constants above; a typo in one shows as the
// encoding mismatch reported first.
func fromHex(s string) []byte {
	b, _ := hex.DecodeString(s)
	return b
}

// TestContainerACLMigration: a container stored with its policies in
// ctagACL answers Get Container ACL with the same XML it did, and its next
// write stores them in accesspolicy's form (ctagPolicies) only.
func TestContainerACLMigration(t *testing.T) {
	const want = `<SignedIdentifiers><SignedIdentifier><Id>p1</Id><AccessPolicy><Start>2024-05-06T08:08:09.0000000Z</Start>` +
		`<Expiry>2024-05-06T07:08:09.0000000Z</Expiry><Permission>rl</Permission></AccessPolicy></SignedIdentifier>` +
		`<SignedIdentifier><Id>p2</Id></SignedIdentifier></SignedIdentifiers>`
	old, err := DecodeContainer(fromHex(storedContainerBefore7))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(accesspolicy.AppendXML(nil, old.ACL)); got != want {
		t.Fatalf("Get Container ACL renders\n%s\nwant\n%s", got, want)
	}
	rewritten := old.encode()
	var tags []byte
	d := record.NewDecoder(rewritten[1:])
	d.Fields(func(tag byte, _ *record.Decoder) { tags = append(tags, tag) })
	if bytes.IndexByte(tags, ctagACL) >= 0 || bytes.IndexByte(tags, ctagPolicies) < 0 {
		t.Fatalf("rewritten with field tags %v", tags)
	}
	again, err := DecodeContainer(rewritten)
	if err != nil || string(accesspolicy.AppendXML(nil, again.ACL)) != want {
		t.Fatalf("rewritten container decodes to %+v (%v)", again, err)
	}
}

// The access control of a Data Lake path is appended after every field an
// older record has: a record written before it reads as one without (the
// golden test above), and one written with it keeps this encoding.
func TestPosixFieldEncoding(t *testing.T) {
	b := goldenBlob()
	b.Posix = PosixState{Owner: "o1", Group: "g1", Sticky: true, ACL: posixacl.ACL{
		{Tag: posixacl.TagUser, Perm: posixacl.All},
		{Tag: posixacl.TagGroup, Perm: posixacl.Read | posixacl.Execute},
		{Tag: posixacl.TagOther},
		{Default: true, Tag: posixacl.TagUser, ID: "u", Perm: posixacl.Read | posixacl.Write},
	}}
	// Tag 24, length 21, "o1", "g1", sticky, 4 entries of kind (tag, and 4
	// for default), id and rights.
	const field = "1815" + "026f31" + "026731" + "01" + "04" + "000007" + "010005" + "030000" + "04017506"
	got := hex.EncodeToString(b.Encode())
	if !strings.HasPrefix(got, storedBlob) || strings.TrimPrefix(got, storedBlob) != field {
		t.Fatalf("encodes to\n%s\nwant the stored record followed by %s", got, field)
	}
	back, err := DecodeBlob(fromHex(storedBlob + field))
	if err != nil || !reflect.DeepEqual(back, b) {
		t.Fatalf("decoded to %+v (%v)", back.Posix, err)
	}
	if old, err := DecodeBlob(fromHex(storedBlob)); err != nil || !old.Posix.Empty() {
		t.Fatalf("a record without the field decodes to %+v (%v)", old.Posix, err)
	}
}
