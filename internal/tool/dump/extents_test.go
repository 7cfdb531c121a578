package dump

import (
	"strings"
	"testing"
)

const (
	idA = "0123456789abcdef0123456789abcdef"
	idB = "fedcba9876543210fedcba9876543210"
	idC = "00000000000000000000000000000000"
)

func TestFindReferences(t *testing.T) {
	cases := []struct {
		name  string
		key   string
		value string
		want  []ref // labels in order of first mention, idA before idB when both
	}{
		{"none", "k", "v", nil},
		{"whole value", "k", idA, []ref{{1, 0}}},
		{"in key", "\x11" + idA + "\x00\x01", "", []ref{{1, 0}}},
		{"key and value", idA, "x" + idA, []ref{{0, 0}, {33, 0}}},
		{"length prefixed", "key", "\x20" + idA + "\x20" + idB, []ref{{4, 0}, {37, 1}}},
		{"adjacent", "", idA + idB, []ref{{0, 0}, {32, 1}}},
		{"after other digits", "", "ab12" + idB, []ref{{4, 0}}},
		{"followed by digits", "", idB + "0123", []ref{{0, 0}}},
		{"unknown hex", "", idC + strings.ToUpper(idA), nil},
		{"upper case is not an ID", "", strings.ToUpper(idA), nil},
		{"truncated", "", idA[:31], nil},
		{"split by a byte", "", idA[:16] + "-" + idA[16:], nil},
		{"repeated", "", idB + "/" + idB, []ref{{0, 0}, {33, 0}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newExtentSet()
			for _, id := range []string{idA, idB} {
				if err := s.add(id, []byte{1, 1}); err != nil {
					t.Fatal(err)
				}
			}
			got := s.findAll(nil, []byte(c.key), []byte(c.value))
			if len(got) != len(c.want) {
				t.Fatalf("refs %v, want %v", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Fatalf("refs %v, want %v", got, c.want)
				}
			}
		})
	}
}

func TestLabelsFollowFirstMention(t *testing.T) {
	s := newExtentSet()
	for _, id := range []string{idA, idB, idC} {
		if err := s.add(id, []byte{1, 1}); err != nil {
			t.Fatal(err)
		}
	}
	s.findAll(nil, []byte("k"), []byte(idB))
	s.findAll(nil, []byte("k"), []byte(idB+idA))
	s.labelRest()
	var order []string
	for _, e := range s.labelled {
		order = append(order, e.id)
	}
	if got, want := strings.Join(order, ","), idB+","+idA+","+idC; got != want {
		t.Fatalf("label order %s, want %s", got, want)
	}
}

func TestAddRefusesOddIDs(t *testing.T) {
	for _, id := range []string{"", "abc", strings.ToUpper(idA), idA + "0", "g" + idA[1:], "../" + idA[3:]} {
		if err := newExtentSet().add(id, nil); err == nil {
			t.Errorf("add(%q) accepted", id)
		}
	}
}

func TestLabelText(t *testing.T) {
	for _, c := range []struct {
		label uint64
		want  string
	}{
		{0, "00000000000000000000000000000000"},
		{1, "00000000000000000000000000000001"},
		{0xabc, "00000000000000000000000000000abc"},
		{1<<64 - 1, "0000000000000000ffffffffffffffff"},
	} {
		var b [idLen]byte
		labelText(b[:], c.label)
		if string(b[:]) != c.want {
			t.Errorf("labelText(%d) = %s, want %s", c.label, b, c.want)
		}
	}
}
