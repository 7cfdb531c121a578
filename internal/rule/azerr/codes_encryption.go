package azerr

// Codes of customer-provided keys, encryption scopes and premium tiers,
// kept apart from codes.go and added to its catalogue at start.
const (
	BlobUsesCustomerSpecifiedEncryption         = "BlobUsesCustomerSpecifiedEncryption"
	BlobDoesNotUseCustomerSpecifiedEncryption   = "BlobDoesNotUseCustomerSpecifiedEncryption"
	EncryptionScopeNotAvailable                 = "EncryptionScopeNotAvailable"
	BlobCustomerSpecifiedEncryptionMismatch     = "BlobCustomerSpecifiedEncryptionMismatch"
	RequestForbiddenByContainerEncryptionPolicy = "RequestForbiddenByContainerEncryptionPolicy"
	BlobTierInadequateForContentLength          = "BlobTierInadequateForContentLength"
	ContentLengthLargerThanTierLimit            = "ContentLengthLargerThanTierLimit"
)

func init() {
	for code, e := range map[string]entry{
		BlobUsesCustomerSpecifiedEncryption:         {409, "The blob is encrypted with customer specified encryption, but it was not provided in the request."},
		BlobDoesNotUseCustomerSpecifiedEncryption:   {409, "The blob is not encrypted with customer specified encryption, but one was provided in the request."},
		EncryptionScopeNotAvailable:                 {409, "The given encryption scope is not available."},
		BlobCustomerSpecifiedEncryptionMismatch:     {409, "The given customer specified encryption does not match the encryption used to encrypt the blob."},
		RequestForbiddenByContainerEncryptionPolicy: {403, "The request is forbidden by the container encryption policy."},
		BlobTierInadequateForContentLength:          {409, "The specified blob tier size limit cannot be less than content length."},
		ContentLengthLargerThanTierLimit:            {409, "The blob's content length cannot exceed its tier limit."},
	} {
		catalogue[code] = e
	}
}
