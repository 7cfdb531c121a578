package dump

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
)

func TestRecordRoundTrip(t *testing.T) {
	key := []byte("\x50" + idA + "\x00\x01")
	value := []byte("v" + idB + idA)
	refs := []ref{{1, 3}, {len(key) + 1, 7}, {len(key) + 33, 3}}
	body := appendRecord(nil, key, value, refs)
	rec, err := parseRecord(body, 8, nil)
	if err != nil {
		t.Fatal(err)
	}
	var l3, l7 [idLen]byte
	labelText(l3[:], 3)
	labelText(l7[:], 7)
	wantKey := "\x50" + string(l3[:]) + "\x00\x01"
	wantValue := "v" + string(l7[:]) + string(l3[:])
	if string(rec.key) != wantKey || string(rec.value) != wantValue {
		t.Fatalf("record %q=%q, want %q=%q", rec.key, rec.value, wantKey, wantValue)
	}
	if len(rec.refs) != 3 || rec.refs[0] != refs[0] || rec.refs[1] != refs[1] || rec.refs[2] != refs[2] {
		t.Fatalf("refs %v, want %v", rec.refs, refs)
	}
	if !bytes.Equal(key, []byte("\x50"+idA+"\x00\x01")) {
		t.Fatal("appendRecord changed its input")
	}
}

// body builds a record body by hand, for malformed ones.
func body(key, value string, refs ...uint64) []byte {
	b := binary.AppendUvarint(nil, uint64(len(key)))
	b = append(b, key...)
	b = binary.AppendUvarint(b, uint64(len(value)))
	b = append(b, value...)
	b = binary.AppendUvarint(b, uint64(len(refs)/2))
	for _, n := range refs {
		b = binary.AppendUvarint(b, n)
	}
	return b
}

func TestParseRecordRejects(t *testing.T) {
	var l0, l1 [idLen]byte
	labelText(l0[:], 0)
	labelText(l1[:], 1)
	lab0, lab1 := string(l0[:]), string(l1[:])
	cases := []struct {
		name string
		body []byte
	}{
		{"empty", nil},
		{"key longer than body", []byte{5, 'a'}},
		{"missing ref count", binary.AppendUvarint(append([]byte{1, 'k'}, 0), 0)[:3]},
		{"unknown label", body("k", lab0, 1, 2)},
		{"label text differs", body("k", lab1, 1, 0)},
		{"outside value", body("k", lab0, 2, 0)},
		{"straddles key and value", body("ab", lab0[2:]+"xx", 0, 0)},
		{"overlapping", body("", lab0+lab0, 0, 0, 16, 0)},
		{"out of order", body("", lab0+lab0, 32, 0, 0, 0)},
		{"trailing bytes", append(body("k", "v"), 0)},
		{"huge ref count", body("k", "v", 1, 2, 3)[:6]},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, err := parseRecord(c.body, 1, nil); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("parseRecord = %v, want ErrCorrupt", err)
			}
		})
	}
	if _, err := parseRecord(body("k", "x"+lab0+lab0, 2, 0, 34, 0), 1, nil); err != nil {
		t.Fatalf("a well-formed record: %v", err)
	}
}
