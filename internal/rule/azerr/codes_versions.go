package azerr

// Codes of requests that address a blob's snapshots and versions, kept
// apart from codes.go and added to its catalogue at start.
const (
	MutuallyExclusiveQueryParameters = "MutuallyExclusiveQueryParameters"
	OperationNotAllowedOnRootBlob    = "OperationNotAllowedOnRootBlob"
)

func init() {
	catalogue[MutuallyExclusiveQueryParameters] = entry{400, "The query parameters specified in the request URI may not be used together."}
	catalogue[OperationNotAllowedOnRootBlob] = entry{403, "The specified operation is not allowed on root blob."}
}
