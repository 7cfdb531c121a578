package xmlw

import "testing"

func TestEncodedElem(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"plain name.txt", "<Name>plain name.txt</Name>"},
		{"a&b", "<Name>a&amp;b</Name>"},
		{"tab\there", "<Name>tab&#x9;here</Name>"},
		{"file\uFFFE", `<Name Encoded="true">file%EF%BF%BE</Name>`},
		{"dir \uFFFF", `<Name Encoded="true">dir%20%EF%BF%BF</Name>`},
		{"bell\x07", `<Name Encoded="true">bell%07</Name>`},
	} {
		w := New("", Standard)
		w.EncodedElem("Name", tc.text)
		if got := string(w.Bytes()); got != tc.want {
			t.Errorf("EncodedElem(%q) = %s, want %s", tc.text, got, tc.want)
		}
	}
}
