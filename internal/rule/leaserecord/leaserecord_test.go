package leaserecord

import (
	"bytes"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/record"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
)

func TestRoundTrip(t *testing.T) {
	at := time.Date(2024, 5, 6, 7, 8, 9, 10, time.UTC)
	for _, l := range []lease.Lease{
		{},
		{ID: "aaaaaaaa-0000-4000-8000-000000000001", Duration: lease.Infinite},
		{ID: "x", Duration: 15, Expires: at},
		{ID: "y", Duration: 60, Expires: at, BreakEnds: at.Add(time.Minute)},
	} {
		var e record.Encoder
		Encode(&e, l)
		d := record.NewDecoder(e.Bytes())
		if got := Decode(&d); d.Err() != nil || got != l || d.Len() != 0 {
			t.Errorf("%+v came back as %+v (%v)", l, got, d.Err())
		}
	}
}

// Blob, container, file and share records store these bytes.
func TestStoredBytes(t *testing.T) {
	var e record.Encoder
	Encode(&e, lease.Lease{ID: "id", Duration: lease.Infinite})
	if want := []byte{2, 'i', 'd', 1, 0, 0}; !bytes.Equal(e.Bytes(), want) {
		t.Fatalf("encoded % x, want % x", e.Bytes(), want)
	}
}

func TestDecodeMalformed(t *testing.T) {
	for _, in := range [][]byte{nil, {5, 'a'}, {1, 'a', 0x80}, {0, 0, 0}} {
		d := record.NewDecoder(in)
		if Decode(&d); d.Err() == nil {
			t.Errorf("decoded % x", in)
		}
	}
}
