package blobdata

import "github.com/lazuli-storage/lazuli/internal/base/record"

// btagEncryptionContext holds a Data Lake path's encryption context: the
// value Path - Create's x-ms-encryption-context gives, which the service
// keeps as it is and answers on reads of the path and in List Paths.
const btagEncryptionContext = 25

func encodeEncryptionContext(e *record.Encoder, context string) {
	if context != "" {
		e.Field(btagEncryptionContext, func(e *record.Encoder) { e.Str(context) })
	}
}
