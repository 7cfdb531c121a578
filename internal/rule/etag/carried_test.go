package etag

import (
	"strings"
	"testing"
	"time"
)

func TestCarry(t *testing.T) {
	at := FromTime(time.Date(2026, 11, 28, 12, 27, 56, 0, time.UTC))
	// Azurite's form: "0x" and the hex of its milliseconds times 70,000-100,000.
	c, err := Carry(`"0x2242CB96BDC3280"`, at)
	if err != nil || c.Text != "0x2242CB96BDC3280" || c.At != at {
		t.Fatalf("Carry of Azurite's ETag: %+v, %v", c, err)
	}
	if got := c.Quoted(at); got != `"0x2242CB96BDC3280"` {
		t.Errorf("Quoted at the imported tick: %s", got)
	}
	if got := c.Bare(at); got != "0x2242CB96BDC3280" {
		t.Errorf("Bare at the imported tick: %s", got)
	}
	// A write issues a new tick: the tick's own ETag from then on.
	next := Next(time.Time{}, at)
	if c.Current(next) || c.Quoted(next) != next.String() || c.Bare(next) != next.Bare() {
		t.Errorf("after the tick moved: %s %s", c.Quoted(next), c.Bare(next))
	}
	if none, err := Carry("", at); err != nil || none.Current(at) || none.Quoted(at) != at.String() {
		t.Errorf(`Carry(""): %+v, %v`, none, err)
	}
	if unquoted, err := Carry("opaque-tag", at); err != nil || unquoted.Quoted(at) != `"opaque-tag"` {
		t.Errorf("Carry of an unquoted tag: %+v, %v", unquoted, err)
	}
}

func TestCarryRefuses(t *testing.T) {
	at := FromTime(time.Date(2026, 11, 28, 12, 27, 56, 0, time.UTC))
	for _, c := range []struct{ text, says string }{
		{`"a b"`, "is not an entity tag"},
		{`a"b`, "is not an entity tag"},
		{"caf\u00e9", "is not an entity tag"},
		// A tick after the imported one is an ETag a later write could be given.
		{(at + 1).Bare(), "a write after its Last-Modified"},
		{(at + 1).String(), "a write after its Last-Modified"},
	} {
		if _, err := Carry(c.text, at); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("Carry(%q): %v, want an error saying %q", c.text, err, c.says)
		}
	}
	// The imported tick's own ETag, or one written another way, is no
	// later tick's.
	for _, text := range []string{at.Bare(), strings.ToLower((at + 1).Bare()), "0X" + (at + 1).Bare()[2:]} {
		if _, err := Carry(text, at); err != nil {
			t.Errorf("Carry(%q): %v", text, err)
		}
	}
}
