package azerr

// Codes the Blob endpoint answers only on an account with a hierarchical
// namespace, where a directory is a blob of its own. They are not on the
// REST page "Blob Storage error codes"; their status and message are the
// service's as recorded in answers to Delete Blob of a directory:
// DirectoryIsNotEmpty in Azure/azure-cli#23062 (the XML error body) and
// Azure/azure-storage-azcopy#2344, OperationNotSupportedOnDirectory in
// Azure/azure-storage-fuse#1068 (a DELETE with x-ms-delete-snapshots).
const (
	DirectoryIsNotEmpty              = "DirectoryIsNotEmpty"
	OperationNotSupportedOnDirectory = "OperationNotSupportedOnDirectory"
)

func init() {
	catalogue[DirectoryIsNotEmpty] = entry{409, "This operation is not permitted on a non-empty directory."}
	catalogue[OperationNotSupportedOnDirectory] = entry{400, "The requested operation is not supported on a directory."}
}
