package blobdata

import "github.com/lazuli-storage/lazuli/internal/base/record"

// btagEncryption is the blob record field of its encryption (tags 11-15
// and 19-29 are left to other blob state).
const btagEncryption = 30

// EncryptionState is how a blob's content was encrypted, as far as the
// protocol shows it: the SHA-256 of the customer-provided key it was
// written with (customer_key.go) and its encryption scope. Both are "" for content
// under the account's own key, and then nothing is stored.
type EncryptionState struct {
	KeySHA256 string
	Scope     string
}

func (e EncryptionState) Empty() bool { return e == EncryptionState{} }

func (e EncryptionState) encode(enc *record.Encoder) {
	if e.Empty() {
		return
	}
	enc.Field(btagEncryption, func(enc *record.Encoder) {
		enc.Str(e.KeySHA256)
		enc.Str(e.Scope)
	})
}

func decodeEncryption(d *record.Decoder) EncryptionState {
	return EncryptionState{KeySHA256: d.Str(), Scope: d.Str()}
}
