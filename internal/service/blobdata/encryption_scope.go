package blobdata

import "github.com/lazuli-storage/lazuli/internal/rule/azerr"

// Encryption scopes (the REST page "Encryption scopes for Blob storage"):
// a write names a scope (x-ms-encryption-scope, or the signed encryption
// scope of its SAS) or takes its container's default one; a container may
// deny writes any other scope; a blob keeps the scope it was written
// under, and writes to its content must use it again. The Blob API
// (service/blob scope.go) and the Data Lake API's append and flush
// (service/dfs), which write the same records, share the rule here.

// WriteScope settles the scope of a write to a blob of c that names
// requested ("" for none): c's default when it names none, 403
// RequestForbiddenByContainerEncryptionPolicy when c denies overrides and
// it names another (azure-sdk-for-js's recorded "create container
// preventEncryptionScopeOverride", recordings/node/encryption_scope), else
// requested.
func (c *Container) WriteScope(requested string) (string, error) {
	switch {
	case requested == "":
		return c.DefaultScope, nil
	case c.DenyScopeOverride && requested != c.DefaultScope:
		return "", azerr.New(azerr.RequestForbiddenByContainerEncryptionPolicy)
	}
	return requested, nil
}

// MatchScope compares the scope a blob was written under (stored) and the
// one a write to its content uses (given): a blob written under a scope
// needs that scope, the service answering a write without one as a
// missing key (409 BlobUsesCustomerSpecifiedEncryption) and one under
// another as a mismatch (409 BlobCustomerSpecifiedEncryptionMismatch;
// azure-sdk-for-js's recorded "setMetadata, getProperties and
// createSnapshot with CPK-N", recordings/node/encryption_scope). A blob
// written under the account's key takes any scope.
func MatchScope(stored, given string) error {
	switch {
	case stored == "" || stored == given:
		return nil
	case given == "":
		return azerr.New(azerr.BlobUsesCustomerSpecifiedEncryption)
	}
	return azerr.New(azerr.BlobCustomerSpecifiedEncryptionMismatch)
}
