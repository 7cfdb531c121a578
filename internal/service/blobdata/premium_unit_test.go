package blobdata

import (
	"encoding/hex"
	"reflect"
	"strings"
	"testing"
)

func TestInferredPremiumTier(t *testing.T) {
	const gib = int64(1) << 30
	for _, c := range []struct {
		size int64
		want string
	}{
		{0, "P10"}, {512, "P10"}, {32 * gib, "P10"}, {128 * gib, "P10"}, {128*gib + 512, "P15"},
		{1024 * gib, "P30"}, {4096 * gib, "P50"}, {8192 * gib, "P60"}, {32767 * gib, "P80"}, {40000 * gib, "P80"},
	} {
		if got := inferredPremiumTier(c.size); got != c.want {
			t.Errorf("size %d: %s, want %s", c.size, got, c.want)
		}
	}
	for _, raw := range []string{"p4", "P80", "p15"} {
		if _, _, ok := PremiumTier(raw); !ok {
			t.Errorf("%s is a premium tier", raw)
		}
	}
	for _, raw := range []string{"P5", "Hot", "P", ""} {
		if _, _, ok := PremiumTier(raw); ok {
			t.Errorf("%q is no premium tier", raw)
		}
	}
}

// The premium mark is appended after the older fields.
func TestPremiumFieldEncoding(t *testing.T) {
	b := goldenBlob()
	b.PremiumPage = true
	const field = "1f0101" // tag 31, length 1, true
	got := hex.EncodeToString(b.Encode())
	if strings.TrimPrefix(got, storedBlob) != field {
		t.Fatalf("encodes to\n%s\nwant the stored record followed by %s", got, field)
	}
	back, err := DecodeBlob(fromHex(storedBlob + field))
	if err != nil || !reflect.DeepEqual(back, b) {
		t.Fatalf("decoded premium %v (%v)", back.PremiumPage, err)
	}
}
