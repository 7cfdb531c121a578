package table

import (
	"encoding/hex"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/xmlw"
	"github.com/lazuli-storage/lazuli/internal/frame/accesspolicy"
)

func timePtr(t time.Time) *time.Time { return &t }

// goldenTable is the table of testdata/table_record_v1.json, which the
// JSON format's encoder wrote: policies that set every field, none, and
// the epoch and year 9999 as instants, an ID and tracked partitions.
func goldenTable() *tableRecord {
	return &tableRecord{Name: "MyTable", ID: 1<<63 + 5, Tracked: [][]byte{[]byte("pk1"), {0xff, 0}},
		ACL: []accesspolicy.Identifier{
			{ID: "full", Start: timePtr(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)),
				Expiry: timePtr(time.Date(2030, 1, 3, 3, 4, 5, 123456700, time.UTC)), Permission: "raud"},
			{ID: "bare"},
			{ID: "edges", Start: timePtr(time.Unix(0, 0).UTC()), Expiry: timePtr(time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC))},
			{ID: "perm only", Permission: "r"},
		}}
}

// goldenTableACL is the Get Table ACL body of goldenTable, as the JSON
// format's code answered it.
const goldenTableACL = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<SignedIdentifiers>" +
	`<SignedIdentifier><Id>full</Id><AccessPolicy><Start>2030-01-02T03:04:05.0000000Z</Start>` +
	`<Expiry>2030-01-03T03:04:05.1234567Z</Expiry><Permission>raud</Permission></AccessPolicy></SignedIdentifier>` +
	`<SignedIdentifier><Id>bare</Id></SignedIdentifier>` +
	`<SignedIdentifier><Id>edges</Id><AccessPolicy><Start>1970-01-01T00:00:00.0000000Z</Start>` +
	`<Expiry>9999-12-31T23:59:59.0000000Z</Expiry></AccessPolicy></SignedIdentifier>` +
	`<SignedIdentifier><Id>perm only</Id><AccessPolicy><Permission>r</Permission></AccessPolicy></SignedIdentifier>` +
	`</SignedIdentifiers>`

// storedTable is goldenTable as tableFormat first wrote it: stored records
// must keep decoding to the same table.
const storedTable = "010108074d795461626c650240040466756c6c03cad4ea8d0e00ca9af58d0ebc99ef3a0472617564046261726500000565646765730300" +
	"00fe85a2ffdf0e0000097065726d206f6e6c790001720308800000000000000504080203706b3102ff00"

func tableACLBody(rec *tableRecord) string {
	x := xmlw.New(xmlw.DeclLine, xmlw.Standard)
	accesspolicy.Write(x, rec.ACL)
	return string(x.Bytes())
}

// TestTableRecordMigration: a table stored in the JSON format reads as the
// same table and answers Get Table ACL with the same XML; written again it
// is in tableFormat and reads back the same.
func TestTableRecordMigration(t *testing.T) {
	stored, err := os.ReadFile("testdata/table_record_v1.json")
	if err != nil {
		t.Fatal(err)
	}
	rec, err := decodeTable(stored)
	if err != nil || !reflect.DeepEqual(rec, goldenTable()) {
		t.Fatalf("decoded to %+v (%v)\nwant %+v", rec, err, goldenTable())
	}
	if got := tableACLBody(rec); got != goldenTableACL {
		t.Fatalf("Get Table ACL renders\n%s\nwant\n%s", got, goldenTableACL)
	}
	rewritten := rec.encode()
	if rewritten[0] != tableFormat {
		t.Fatalf("written again as %q", rewritten)
	}
	again, err := decodeTable(rewritten)
	if err != nil || !reflect.DeepEqual(again, rec) || tableACLBody(again) != goldenTableACL {
		t.Fatalf("rewritten table decodes to %+v (%v)", again, err)
	}
}

func TestTableRecordKeepsItsEncoding(t *testing.T) {
	if got := hex.EncodeToString(goldenTable().encode()); got != storedTable {
		t.Errorf("encodes to\n%s\nwant\n%s", got, storedTable)
	}
	b, _ := hex.DecodeString(storedTable)
	if got, err := decodeTable(b); err != nil || !reflect.DeepEqual(got, goldenTable()) {
		t.Fatalf("decoded to %+v (%v)", got, err)
	}
}

// A table stored in the JSON format with only a name (no ID, ACL or
// tracked partitions) reads as that name alone and keeps it when written
// again.
func TestTableRecordJSONNameOnly(t *testing.T) {
	rec, err := decodeTable([]byte(`{"n":"Old"}`))
	if err != nil || !reflect.DeepEqual(rec, &tableRecord{Name: "Old"}) {
		t.Fatalf("decoded to %+v (%v)", rec, err)
	}
	if again, err := decodeTable(rec.encode()); err != nil || !reflect.DeepEqual(again, rec) {
		t.Fatalf("written again decodes to %+v (%v)", again, err)
	}
}

func TestTableRecordRejectsMalformed(t *testing.T) {
	for _, stored := range []string{"", "\x07", "\x01\x01\x05", `{"n":7}`, "{"} {
		if rec, err := decodeTable([]byte(stored)); err == nil {
			t.Errorf("%q decoded to %+v", stored, rec)
		}
	}
}
