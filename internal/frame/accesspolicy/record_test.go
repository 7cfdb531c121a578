package accesspolicy

import (
	"encoding/hex"
	"reflect"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/record"
)

func instant(t time.Time) *time.Time { return &t }

// goldenIdentifiers sets every stored field and each way one is unset,
// with the instants the stored form exists for: the epoch as a Start and
// the year 9999 as an Expiry.
func goldenIdentifiers() []Identifier {
	return []Identifier{
		{ID: "full", Start: instant(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)),
			Expiry: instant(time.Date(2030, 1, 3, 3, 4, 5, 123456700, time.UTC)), Permission: "raup"},
		{ID: "bare"},
		{ID: "edges", Start: instant(time.Unix(0, 0).UTC()), Expiry: instant(time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC))},
		{ID: "perm only", Permission: "r"},
	}
}

// storedIdentifiers is goldenIdentifiers as EncodeRecord first wrote them:
// stored bytes must keep decoding to the same identifiers.
const storedIdentifiers = "040466756c6c03cad4ea8d0e00ca9af58d0ebc99ef3a0472617570046261726500000565646765730300" +
	"00fe85a2ffdf0e0000097065726d206f6e6c79000172"

func TestRecordKeepsItsEncoding(t *testing.T) {
	var e record.Encoder
	EncodeRecord(&e, goldenIdentifiers())
	if got := hex.EncodeToString(e.Bytes()); got != storedIdentifiers {
		t.Errorf("encodes to\n%s\nwant\n%s", got, storedIdentifiers)
	}
	stored, _ := hex.DecodeString(storedIdentifiers)
	d := record.NewDecoder(stored)
	got := DecodeRecord(&d)
	if d.Err() != nil || d.Len() != 0 || !reflect.DeepEqual(got, goldenIdentifiers()) {
		t.Fatalf("decoded to %+v (%v, %d left)\nwant %+v", got, d.Err(), d.Len(), goldenIdentifiers())
	}
}

// The instants Get ACL renders from a decoded record are those it was set
// with, including the ones a count of nanoseconds cannot hold.
func TestRecordRoundTripRendersTheSameXML(t *testing.T) {
	var e record.Encoder
	EncodeRecord(&e, goldenIdentifiers())
	d := record.NewDecoder(e.Bytes())
	if got, want := string(AppendXML(nil, DecodeRecord(&d))), string(AppendXML(nil, goldenIdentifiers())); got != want {
		t.Fatalf("renders\n%s\nwant\n%s", got, want)
	}
}

func TestRecordEmpty(t *testing.T) {
	var e record.Encoder
	EncodeRecord(&e, nil)
	d := record.NewDecoder(e.Bytes())
	if got := DecodeRecord(&d); got != nil || d.Err() != nil {
		t.Fatalf("decoded to %+v (%v)", got, d.Err())
	}
}

func TestRecordRejectsMalformed(t *testing.T) {
	for name, stored := range map[string]string{
		"truncated":            storedIdentifiers[:20],
		"unknown presence bit": "0101610400",
		"nanoseconds past one": "01016101" + "00" + "8094ebdc03" + "00",
		"count beyond input":   "05",
	} {
		b, _ := hex.DecodeString(stored)
		d := record.NewDecoder(b)
		if got := DecodeRecord(&d); d.Err() == nil || got != nil {
			t.Errorf("%s: decoded to %+v (%v)", name, got, d.Err())
		}
	}
}

// FuzzDecodeRecord: no stored bytes panic, and whatever decodes encodes
// back to bytes that decode the same.
func FuzzDecodeRecord(f *testing.F) {
	stored, _ := hex.DecodeString(storedIdentifiers)
	f.Add(stored)
	f.Fuzz(func(t *testing.T, b []byte) {
		d := record.NewDecoder(b)
		ids := DecodeRecord(&d)
		if d.Err() != nil {
			return
		}
		var e record.Encoder
		EncodeRecord(&e, ids)
		again := record.NewDecoder(e.Bytes())
		if got := DecodeRecord(&again); again.Err() != nil || !reflect.DeepEqual(got, ids) {
			t.Fatalf("%x decoded to %+v, re-encoded and decoded to %+v (%v)", b, ids, got, again.Err())
		}
	})
}
