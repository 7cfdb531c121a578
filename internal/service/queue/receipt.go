package queue

import (
	"encoding/base64"
	"encoding/binary"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// receiptFormat is the version byte of a pop receipt.
const receiptFormat = 1

// receiptEncoding is canonical: a receipt with stray trailing bits is not
// one this service issued.
var receiptEncoding = base64.RawURLEncoding.Strict()

// receiptLen is the decoded length of a pop receipt: format (1), visibleAt
// (8), seq (8), nonce (8).
const receiptLen = 1 + 8 + 8 + 8

// receipt is what a pop receipt names: the message's key position when the
// receipt was issued and the nonce of that delivery.
type receipt struct {
	VisibleAt, Seq, Nonce uint64
}

// String renders the receipt in URL-safe base64 without padding, so that a
// client that forgets to escape it in the query string still sends it intact.
func (r receipt) String() string {
	var b [receiptLen]byte
	b[0] = receiptFormat
	binary.BigEndian.PutUint64(b[1:], r.VisibleAt)
	binary.BigEndian.PutUint64(b[9:], r.Seq)
	binary.BigEndian.PutUint64(b[17:], r.Nonce)
	return receiptEncoding.EncodeToString(b[:])
}

// receiptOf is the receipt of m's current delivery.
func receiptOf(m *message) receipt {
	return receipt{VisibleAt: m.VisibleAt, Seq: m.Seq, Nonce: m.Nonce}
}

// parseReceipt checks a popreceipt query value. A value this service could
// not have issued is 400 InvalidQueryParameterValue with the reason the real
// service gives; whether it names a live delivery is decided later (404).
func parseReceipt(s string) (receipt, error) {
	bad := azerr.InvalidQuery("popreceipt", s, "invalid receipt format")
	if receiptEncoding.DecodedLen(len(s)) != receiptLen {
		return receipt{}, bad
	}
	var b [receiptLen]byte
	n, err := receiptEncoding.Decode(b[:], []byte(s))
	if err != nil || n != receiptLen || b[0] != receiptFormat {
		return receipt{}, bad
	}
	return receipt{
		VisibleAt: binary.BigEndian.Uint64(b[1:]),
		Seq:       binary.BigEndian.Uint64(b[9:]),
		Nonce:     binary.BigEndian.Uint64(b[17:]),
	}, nil
}
