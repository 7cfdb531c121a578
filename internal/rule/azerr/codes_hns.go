package azerr

// Codes the Blob endpoint answers only on an account with a hierarchical
// namespace, where a directory is a blob of its own. They are not on the
// REST page "Blob Storage error codes"; their status and message are the
// service's as recorded in answers to Delete Blob of a directory:
// DirectoryIsNotEmpty in Azure/azure-cli#23062 (the XML error body) and
// Azure/azure-storage-azcopy#2344, OperationNotSupportedOnDirectory in
// Azure/azure-storage-fuse#1068 (a DELETE with x-ms-delete-snapshots).
// FeatureNotYetSupportedForHierarchicalNamespaceAccounts answers a Blob
// feature such an account lacks (page blobs, index tags set on a write):
// the code as Azure/azure-storage-node#632 reports it (Append Block on such
// an account in 2020, since supported), status and message as a client's
// log of a live answer quotes them: "Status: 409 (Specified feature is not
// yet supported for hierarchical namespace accounts.)".
const (
	DirectoryIsNotEmpty                                    = "DirectoryIsNotEmpty"
	OperationNotSupportedOnDirectory                       = "OperationNotSupportedOnDirectory"
	FeatureNotYetSupportedForHierarchicalNamespaceAccounts = "FeatureNotYetSupportedForHierarchicalNamespaceAccounts"
)

func init() {
	catalogue[DirectoryIsNotEmpty] = entry{409, "This operation is not permitted on a non-empty directory."}
	catalogue[OperationNotSupportedOnDirectory] = entry{400, "The requested operation is not supported on a directory."}
	catalogue[FeatureNotYetSupportedForHierarchicalNamespaceAccounts] = entry{409, "Specified feature is not yet supported for hierarchical namespace accounts."}
}
