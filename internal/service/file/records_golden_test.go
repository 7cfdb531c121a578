package file

import (
	"bytes"
	"encoding/hex"
	"reflect"
	"testing"

	"time"

	"github.com/lazuli-storage/lazuli/internal/base/record"
	"github.com/lazuli-storage/lazuli/internal/frame/accesspolicy"
	"github.com/lazuli-storage/lazuli/internal/rule/contentprops"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
	"github.com/lazuli-storage/lazuli/internal/rule/metadata"
	"github.com/lazuli-storage/lazuli/internal/service/file/ranges"
	"github.com/lazuli-storage/lazuli/internal/service/file/smbstate"
)

// goldenNode is a file node record that sets every stored field.
func goldenNode() *node {
	at := time.Date(2024, 5, 6, 7, 8, 9, 100, time.UTC)
	return &node{Name: "File.txt", ID: 1 << 62, ParentID: 9, ETag: 1 << 50, Size: 4 << 40,
		SMB: smbProps{Attrs: attrArchive | attrHidden, Created: at, Written: at.Add(time.Second),
			Changed: at.Add(2 * time.Second), PermKey: "1*2"},
		Metadata: metadata.Set{{Name: "a", Value: "1"}, {Name: "b", Value: ""}},
		Props: contentprops.Props{Type: "text/plain", Encoding: "gzip", Language: "en", Disposition: "inline",
			CacheControl: "no-cache", MD5: []byte("0123456789abcdef")},
		Lease: lease.Lease{ID: "aaaaaaaa-0000-4000-8000-000000000001", Duration: lease.Infinite},
		Copy:  copyState{ID: "c", Source: "http://x/y", Status: "success", Description: "done", Copied: 3, Total: 3, Completed: at},
		Opens: []smbstate.Open{{HandleID: 5, SessionID: 6, ClientIP: "1.2.3.4:5", ClientName: "pc", OpenTime: at,
			LastReconnectTime: at.Add(time.Minute), Access: smbstate.Read | smbstate.Write, Share: smbstate.ShareRead}},
		DeletePending: true,
	}
}

// goldenLinkRecord is the link record of a file of an NFS share with hard
// links (its state: a node record without name and parent, with the NFS
// properties and the number of names), and goldenLinkName the record of one
// of its names.
func goldenLinkRecord() *node {
	n := goldenNode()
	n.Name, n.ParentID = "", 0
	n.NFS = &nfsProps{Owner: "1000", Group: "100", Mode: 0o640}
	n.Links = 3
	return n
}

func goldenLinkName() *node {
	return &node{Name: "Other.txt", ID: 1 << 62, ParentID: 11, linkName: true}
}

// goldenShare is a share record that sets every stored field.
func goldenShare() *shareRecord {
	at := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	return &shareRecord{ETag: 1 << 45, Created: at, Quota: 100, Usage: 12345, Metadata: metadata.Set{{Name: "k", Value: "v"}},
		Lease:      lease.Lease{ID: "bbbbbbbb-0000-4000-8000-000000000002", Duration: 30, Expires: at.Add(30 * time.Second)},
		ACL:        []accesspolicy.Identifier{{ID: "p", Start: &at, Expiry: instant(at.Add(time.Hour)), Permission: "rl"}, {ID: "q"}},
		AccessTier: "Cool", TierChanged: at, Protocols: "NFS", RootSquash: "RootSquash"}
}

func instant(t time.Time) *time.Time { return &t }

func goldenSegment() ranges.Segment {
	return ranges.Segment{Start: 7 << 30, Length: 4096, Extent: "ext-1", ExtentOffset: 12}
}

// Records as an earlier version of this package wrote them (hex of the
// golden records above). They must decode to the same values and the
// records must encode to the same bytes, or data already stored changes
// meaning.
const (
	storedNode    = "010143010846696c652e74787480808080808080804009808080808080800222c8e9f9dff6a4eacc2fc891d099fea4eacc2fc8b9a6d385a5eacc2f03312a328080808080800202340a746578742f706c61696e04677a697002656e06696e6c696e65086e6f2d636163686510303132333435363738396162636465660308020161013101620004282461616161616161612d303030302d343030302d383030302d303030303030303030303031010000052501630a687474703a2f2f782f79077375636365737304646f6e650606c8e9f9dff6a4eacc2f06250101050609312e322e332e343a35027063c8e9f9dff6a4eacc2fc8c9b4e4b5a8eacc2f0301"
	storedShare   = "0101158080808080800880e8f9dff6a4eacc2fc801f2c001020501016b017603302462626262626262622d303030302d343030302d383030302d3030303030303030303030323c809897a2d6a6eacc2f00091702017003b287c4e30c00d2bfc4e30c0002726c01710000050e04436f6f6c80e8f9dff6a4eacc2f060f034e46530a526f6f74537175617368"
	storedSegment = "01056578742d310c8020"

	storedLinkRecord = "01013b010080808080808080804000808080808080800222c8e9f9dff6a4eacc2fc891d099fea4eacc2fc8b9a6d385a5eacc2f03312a328080808080800202340a746578742f706c61696e04677a697002656e06696e6c696e65086e6f2d636163686510303132333435363738396162636465660308020161013101620004282461616161616161612d303030302d343030302d383030302d303030303030303030303031010000052501630a687474703a2f2f782f79077375636365737304646f6e650606c8e9f9dff6a4eacc2f06250101050609312e322e332e343a35027063c8e9f9dff6a4eacc2fc8c9b4e4b5a8eacc2f03011e0b043130303003313030a003210103"
	storedLinkName   = "01011c01094f746865722e7478748080808080808080400b000000000000002000"

	// storedShareBefore9 is goldenShare as written while the share's
	// policies were field stagACL; such shares must read the same.
	storedShareBefore9 = "0101158080808080800880e8f9dff6a4eacc2fc801f2c001020501016b017603302462626262626262622d303030302d343030302d383030302d3030303030303030303030323c809897a2d6a6eacc2f00041d02017080e8f9dff6a4eacc2f80e8beebbcf6ebcc2f02726c0171000000050e04436f6f6c80e8f9dff6a4eacc2f060f034e46530a526f6f74537175617368"
)

func TestStoredRecordsKeepTheirEncoding(t *testing.T) {
	node, share, seg := goldenNode(), goldenShare(), goldenSegment()
	for _, c := range []struct {
		what    string
		encoded []byte
		stored  string
	}{
		{"node", node.encode(), storedNode},
		{"share", share.encode(), storedShare},
		{"segment", encodeSegment(seg), storedSegment},
		{"link record", goldenLinkRecord().encode(), storedLinkRecord},
		{"link name", nameRecord(goldenLinkName()), storedLinkName},
	} {
		if got := hex.EncodeToString(c.encoded); got != c.stored {
			t.Errorf("%s encodes to\n%s\nwant\n%s", c.what, got, c.stored)
		}
	}

	if got, err := decodeNode(fromHex(storedNode)); err != nil || !reflect.DeepEqual(got, node) {
		t.Errorf("node decoded to %+v (%v)\nwant %+v", got, err, node)
	}
	for _, stored := range []string{storedShare, storedShareBefore9} {
		if got, err := decodeShare(fromHex(stored)); err != nil || !reflect.DeepEqual(got, share) {
			t.Errorf("share %s decoded to %+v (%v)\nwant %+v", stored, got, err, share)
		}
	}
	key := rangeKey("acct", "share", "", 42, seg.Start)
	if got, err := decodeSegment(key, fromHex(storedSegment)); err != nil || got != seg {
		t.Errorf("segment decoded to %+v (%v)\nwant %+v", got, err, seg)
	}
}

// The records of hard links decode to the values they were written from.
func TestStoredLinkRecordsDecode(t *testing.T) {
	for _, c := range []struct {
		what, stored string
		want         func() *node
	}{{"link record", storedLinkRecord, goldenLinkRecord}, {"link name", storedLinkName, goldenLinkName}} {
		if got, err := decodeNode(fromHex(c.stored)); err != nil || !reflect.DeepEqual(got, c.want()) {
			t.Errorf("%s decoded to %+v (%v)\nwant %+v", c.what, got, err, c.want())
		}
	}
}

// fromHex decodes one of the constants above; a typo in one shows as the
// encoding mismatch reported first.
func fromHex(s string) []byte {
	b, _ := hex.DecodeString(s)
	return b
}

// TestShareACLMigration: a share stored with its policies in stagACL
// answers Get Share ACL with the same XML it did, and its next write
// stores them in accesspolicy's form (stagPolicies) only.
func TestShareACLMigration(t *testing.T) {
	const want = `<SignedIdentifiers><SignedIdentifier><Id>p</Id><AccessPolicy><Start>2024-05-06T07:08:09.0000000Z</Start>` +
		`<Expiry>2024-05-06T08:08:09.0000000Z</Expiry><Permission>rl</Permission></AccessPolicy></SignedIdentifier>` +
		`<SignedIdentifier><Id>q</Id></SignedIdentifier></SignedIdentifiers>`
	old, err := decodeShare(fromHex(storedShareBefore9))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(accesspolicy.AppendXML(nil, old.ACL)); got != want {
		t.Fatalf("Get Share ACL renders\n%s\nwant\n%s", got, want)
	}
	rewritten := old.encode()
	var tags []byte
	d := record.NewDecoder(rewritten[1:])
	d.Fields(func(tag byte, _ *record.Decoder) { tags = append(tags, tag) })
	if bytes.IndexByte(tags, stagACL) >= 0 || bytes.IndexByte(tags, stagPolicies) < 0 {
		t.Fatalf("rewritten with field tags %v", tags)
	}
	again, err := decodeShare(rewritten)
	if err != nil || string(accesspolicy.AppendXML(nil, again.ACL)) != want {
		t.Fatalf("rewritten share decodes to %+v (%v)", again, err)
	}
}
