package azerr

// Error codes of the Azure Storage services. The status and default message
// of each are in catalogue.
const (
	ConditionNotMet                         = "ConditionNotMet"
	ConditionHeadersNotSupported            = "ConditionHeadersNotSupported"
	MultipleConditionHeadersNotSupported    = "MultipleConditionHeadersNotSupported"
	EmptyMetadataKey                        = "EmptyMetadataKey"
	InvalidHeaderValue                      = "InvalidHeaderValue"
	InvalidHttpVerb                         = "InvalidHttpVerb"
	InvalidInput                            = "InvalidInput"
	InvalidMd5                              = "InvalidMd5"
	InvalidMetadata                         = "InvalidMetadata"
	InvalidQueryParameterValue              = "InvalidQueryParameterValue"
	InvalidResourceName                     = "InvalidResourceName"
	InvalidUri                              = "InvalidUri"
	InvalidXmlDocument                      = "InvalidXmlDocument"
	InvalidXmlNodeValue                     = "InvalidXmlNodeValue"
	Md5Mismatch                             = "Md5Mismatch"
	Crc64Mismatch                           = "Crc64Mismatch"
	BothCrc64AndMd5HeaderPresent            = "BothCrc64AndMd5HeaderPresent"
	MetadataTooLarge                        = "MetadataTooLarge"
	MissingRequiredQueryParameter           = "MissingRequiredQueryParameter"
	MissingRequiredHeader                   = "MissingRequiredHeader"
	MissingRequiredXmlNode                  = "MissingRequiredXmlNode"
	OutOfRangeInput                         = "OutOfRangeInput"
	OutOfRangeQueryParameterValue           = "OutOfRangeQueryParameterValue"
	RequestUrlFailedToParse                 = "RequestUrlFailedToParse"
	UnsupportedHeader                       = "UnsupportedHeader"
	UnsupportedXmlNode                      = "UnsupportedXmlNode"
	UnsupportedQueryParameter               = "UnsupportedQueryParameter"
	InvalidAuthenticationInfo               = "InvalidAuthenticationInfo"
	NoAuthenticationInformation             = "NoAuthenticationInformation"
	AuthenticationFailed                    = "AuthenticationFailed"
	AccountIsDisabled                       = "AccountIsDisabled"
	InsufficientAccountPermissions          = "InsufficientAccountPermissions"
	AuthorizationFailure                    = "AuthorizationFailure"
	AuthorizationSourceIPMismatch           = "AuthorizationSourceIPMismatch"
	AuthorizationProtocolMismatch           = "AuthorizationProtocolMismatch"
	AuthorizationPermissionMismatch         = "AuthorizationPermissionMismatch"
	AuthorizationServiceMismatch            = "AuthorizationServiceMismatch"
	AuthorizationResourceTypeMismatch       = "AuthorizationResourceTypeMismatch"
	InvalidRange                            = "InvalidRange"
	MissingContentLengthHeader              = "MissingContentLengthHeader"
	RequestBodyTooLarge                     = "RequestBodyTooLarge"
	UnsupportedHttpVerb                     = "UnsupportedHttpVerb"
	ResourceNotFound                        = "ResourceNotFound"
	AccountAlreadyExists                    = "AccountAlreadyExists"
	ResourceAlreadyExists                   = "ResourceAlreadyExists"
	ResourceTypeMismatch                    = "ResourceTypeMismatch"
	InternalError                           = "InternalError"
	OperationTimedOut                       = "OperationTimedOut"
	ServerBusy                              = "ServerBusy"
	NotImplemented                          = "NotImplemented"
	BlobNotFound                            = "BlobNotFound"
	ContainerNotFound                       = "ContainerNotFound"
	BlobAlreadyExists                       = "BlobAlreadyExists"
	ContainerAlreadyExists                  = "ContainerAlreadyExists"
	ContainerBeingDeleted                   = "ContainerBeingDeleted"
	ContainerDisabled                       = "ContainerDisabled"
	BlobArchived                            = "BlobArchived"
	BlobBeingRehydrated                     = "BlobBeingRehydrated"
	BlobNotArchived                         = "BlobNotArchived"
	BlobOverwritten                         = "BlobOverwritten"
	BlockCountExceedsLimit                  = "BlockCountExceedsLimit"
	BlockListTooLong                        = "BlockListTooLong"
	CopyIdMismatch                          = "CopyIdMismatch"
	InvalidBlobType                         = "InvalidBlobType"
	InvalidSourceBlobType                   = "InvalidSourceBlobType"
	InvalidSourceBlobUrl                    = "InvalidSourceBlobUrl"
	CannotVerifyCopySource                  = "CannotVerifyCopySource"
	LeaseAlreadyPresent                     = "LeaseAlreadyPresent"
	LeaseAlreadyBroken                      = "LeaseAlreadyBroken"
	LeaseIdMismatchWithLeaseOperation       = "LeaseIdMismatchWithLeaseOperation"
	LeaseIsBreakingAndCannotBeAcquired      = "LeaseIsBreakingAndCannotBeAcquired"
	LeaseIsBreakingAndCannotBeChanged       = "LeaseIsBreakingAndCannotBeChanged"
	LeaseIsBrokenAndCannotBeRenewed         = "LeaseIsBrokenAndCannotBeRenewed"
	LeaseNotPresentWithLeaseOperation       = "LeaseNotPresentWithLeaseOperation"
	NoPendingCopyOperation                  = "NoPendingCopyOperation"
	PendingCopyOperation                    = "PendingCopyOperation"
	PreviousSnapshotNotFound                = "PreviousSnapshotNotFound"
	PreviousSnapshotOperationNotSupported   = "PreviousSnapshotOperationNotSupported"
	SequenceNumberIncrementTooLarge         = "SequenceNumberIncrementTooLarge"
	SnapshotCountExceeded                   = "SnapshotCountExceeded"
	SnapshotsPresent                        = "SnapshotsPresent"
	SystemInUse                             = "SystemInUse"
	AppendPositionConditionNotMet           = "AppendPositionConditionNotMet"
	InfiniteLeaseDurationRequired           = "InfiniteLeaseDurationRequired"
	LeaseIdMismatchWithBlobOperation        = "LeaseIdMismatchWithBlobOperation"
	LeaseIdMismatchWithContainerOperation   = "LeaseIdMismatchWithContainerOperation"
	LeaseIdMissing                          = "LeaseIdMissing"
	LeaseLost                               = "LeaseLost"
	LeaseNotPresentWithBlobOperation        = "LeaseNotPresentWithBlobOperation"
	LeaseNotPresentWithContainerOperation   = "LeaseNotPresentWithContainerOperation"
	MaxBlobSizeConditionNotMet              = "MaxBlobSizeConditionNotMet"
	SequenceNumberConditionNotMet           = "SequenceNumberConditionNotMet"
	SourceConditionNotMet                   = "SourceConditionNotMet"
	TargetConditionNotMet                   = "TargetConditionNotMet"
	InvalidBlobOrBlock                      = "InvalidBlobOrBlock"
	InvalidBlockId                          = "InvalidBlockId"
	InvalidBlockList                        = "InvalidBlockList"
	InvalidOperation                        = "InvalidOperation"
	CopyAcrossAccountsNotSupported          = "CopyAcrossAccountsNotSupported"
	InvalidVersionForPageBlobOperation      = "InvalidVersionForPageBlobOperation"
	PreviousSnapshotCannotBeNewer           = "PreviousSnapshotCannotBeNewer"
	InvalidPageRange                        = "InvalidPageRange"
	UnauthorizedBlobOverwrite               = "UnauthorizedBlobOverwrite"
	PublicAccessNotPermitted                = "PublicAccessNotPermitted"
	FeatureNotEnabled                       = "FeatureNotEnabled"
	UnsatisfiableCondition                  = "UnsatisfiableCondition"
	BlobImmutableDueToPolicy                = "BlobImmutableDueToPolicy"
	QueueNotFound                           = "QueueNotFound"
	QueueAlreadyExists                      = "QueueAlreadyExists"
	QueueBeingDeleted                       = "QueueBeingDeleted"
	QueueDisabled                           = "QueueDisabled"
	QueueNotEmpty                           = "QueueNotEmpty"
	MessageNotFound                         = "MessageNotFound"
	MessageTooLarge                         = "MessageTooLarge"
	PopReceiptMismatch                      = "PopReceiptMismatch"
	InvalidMarker                           = "InvalidMarker"
	TableNotFound                           = "TableNotFound"
	TableAlreadyExists                      = "TableAlreadyExists"
	TableBeingDeleted                       = "TableBeingDeleted"
	EntityNotFound                          = "EntityNotFound"
	EntityAlreadyExists                     = "EntityAlreadyExists"
	EntityTooLarge                          = "EntityTooLarge"
	UpdateConditionNotSatisfied             = "UpdateConditionNotSatisfied"
	DuplicatePropertiesSpecified            = "DuplicatePropertiesSpecified"
	PropertiesNeedValue                     = "PropertiesNeedValue"
	PropertyNameInvalid                     = "PropertyNameInvalid"
	PropertyNameTooLong                     = "PropertyNameTooLong"
	PropertyValueTooLarge                   = "PropertyValueTooLarge"
	TooManyProperties                       = "TooManyProperties"
	InvalidValueType                        = "InvalidValueType"
	InvalidDuplicateRow                     = "InvalidDuplicateRow"
	CommandsInBatchActOnDifferentPartitions = "CommandsInBatchActOnDifferentPartitions"
	JsonFormatNotSupported                  = "JsonFormatNotSupported"
	MethodNotAllowed                        = "MethodNotAllowed"
	AtomFormatNotSupported                  = "AtomFormatNotSupported"
	XMethodNotUsingPost                     = "XMethodNotUsingPost"
	ShareNotFound                           = "ShareNotFound"
	ShareAlreadyExists                      = "ShareAlreadyExists"
	ShareBeingDeleted                       = "ShareBeingDeleted"
	ShareDisabled                           = "ShareDisabled"
	ShareHasSnapshots                       = "ShareHasSnapshots"
	ShareSnapshotNotFound                   = "ShareSnapshotNotFound"
	ShareSnapshotOperationNotSupported      = "ShareSnapshotOperationNotSupported"
	ShareSnapshotCountExceeded              = "ShareSnapshotCountExceeded"
	ShareSizeLimitReached                   = "ShareSizeLimitReached"
	ParentNotFound                          = "ParentNotFound"
	DirectoryNotEmpty                       = "DirectoryNotEmpty"
	CannotDeleteFileOrDirectory             = "CannotDeleteFileOrDirectory"
	FileLockConflict                        = "FileLockConflict"
	InvalidFileOrDirectoryPathName          = "InvalidFileOrDirectoryPathName"
	SharingViolation                        = "SharingViolation"
	DeletePending                           = "DeletePending"
	ReadOnlyAttribute                       = "ReadOnlyAttribute"
	ClientCacheFlushDelay                   = "ClientCacheFlushDelay"
	FileShareProvisionedIopsInvalid         = "FileShareProvisionedIopsInvalid"
	// Added for CORS, File permissions, page/append blobs, tags, Blob Batch and incremental copy.
	CorsPreflightFailure                       = "CorsPreflightFailure"
	FileInvalidPermission                      = "FileInvalidPermission"
	FileInvalidPermissionKey                   = "FileInvalidPermissionKey"
	DeleteShareWhenSnapshotLeased              = "DeleteShareWhenSnapshotLeased"
	BlobIsSealed                               = "BlobIsSealed"
	EmptyTagName                               = "EmptyTagName"
	DuplicateTagNames                          = "DuplicateTagNames"
	TagsTooLarge                               = "TagsTooLarge"
	InvalidTag                                 = "InvalidTag"
	ExceedsMaxBatchRequestCount                = "ExceedsMaxBatchRequestCount"
	IncrementalCopyBlobMismatch                = "IncrementalCopyBlobMismatch"
	IncrementalCopyOfEarlierSnapshotNotAllowed = "IncrementalCopyOfEarlierSnapshotNotAllowed"
	IncrementalCopySourceMustBeSnapshot        = "IncrementalCopySourceMustBeSnapshot"
	OperationNotAllowedOnIncrementalCopyBlob   = "OperationNotAllowedOnIncrementalCopyBlob"

	// Version-level immutability.
	BlobImmutableDueToLegalHold            = "BlobImmutableDueToLegalHold"
	ImmutabilityPolicyDeleteOnLockedPolicy = "ImmutabilityPolicyDeleteOnLockedPolicy"

	// Account kinds and settings.
	HierarchicalNamespaceNotEnabled = "HierarchicalNamespaceNotEnabled"
	AccountRequiresHttps            = "AccountRequiresHttps"

	// Access tier conditions (Delete Blob, 2026-02-06).
	AccessTierChangeTimeConditionNotMet = "AccessTierChangeTimeConditionNotMet"
)

type entry struct {
	status  int
	message string
}

var catalogue = map[string]entry{
	ConditionNotMet:                            {412, "The condition specified using HTTP conditional header(s) is not met."},
	ConditionHeadersNotSupported:               {400, "Condition headers are not supported."},
	MultipleConditionHeadersNotSupported:       {400, "Multiple condition headers are not supported."},
	EmptyMetadataKey:                           {400, "The key for one of the metadata key-value pairs is empty."},
	InvalidHeaderValue:                         {400, "The value for one of the HTTP headers is not in the correct format."},
	InvalidHttpVerb:                            {400, "The HTTP verb specified was not recognized by the server."},
	InvalidInput:                               {400, "One of the request inputs is not valid."},
	InvalidMd5:                                 {400, "The MD5 value specified in the request is invalid. MD5 value must be 128 bits and base64 encoded."},
	InvalidMetadata:                            {400, "The metadata specified is invalid. It has characters that are not permitted."},
	InvalidQueryParameterValue:                 {400, "Value for one of the query parameters specified in the request URI is invalid."},
	InvalidResourceName:                        {400, "The specifed resource name contains invalid characters."},
	InvalidUri:                                 {400, "The requested URI does not represent any resource on the server."},
	InvalidXmlDocument:                         {400, "XML specified is not syntactically valid."},
	InvalidXmlNodeValue:                        {400, "The value for one of the XML nodes is not in the correct format."},
	Md5Mismatch:                                {400, "The MD5 value specified in the request did not match with the MD5 value calculated by the server."},
	Crc64Mismatch:                              {400, "The CRC64 value specified in the request did not match with the CRC64 value calculated by the server."},
	BothCrc64AndMd5HeaderPresent:               {400, "Both x-ms-content-crc64 header and Content-MD5 header are present."},
	MetadataTooLarge:                           {400, "The size of the request metadata exceeds the maximum size permitted."},
	MissingRequiredQueryParameter:              {400, "A query parameter that's mandatory for this request is not specified."},
	MissingRequiredHeader:                      {400, "An HTTP header that's mandatory for this request is not specified."},
	MissingRequiredXmlNode:                     {400, "An XML node that's mandatory for this request is not specified."},
	OutOfRangeInput:                            {400, "One of the request inputs is out of range."},
	OutOfRangeQueryParameterValue:              {400, "One of the query parameters specified in the request URI is outside the permissible range."},
	RequestUrlFailedToParse:                    {400, "The url in the request could not be parsed."},
	UnsupportedHeader:                          {400, "One of the HTTP headers specified in the request is not supported."},
	UnsupportedXmlNode:                         {400, "One of the XML nodes specified in the request body is not supported."},
	UnsupportedQueryParameter:                  {400, "One of the query parameters specified in the request URI is not supported."},
	InvalidAuthenticationInfo:                  {400, "Authentication information is not given in the correct format. Check the value of Authorization header."},
	NoAuthenticationInformation:                {401, "Server failed to authenticate the request. Please refer to the information in the www-authenticate header."},
	AuthenticationFailed:                       {403, "Server failed to authenticate the request. Make sure the value of Authorization header is formed correctly including the signature."},
	AccountIsDisabled:                          {403, "The specified account is disabled."},
	InsufficientAccountPermissions:             {403, "The account being accessed does not have sufficient permissions to execute this operation."},
	AuthorizationFailure:                       {403, "This request is not authorized to perform this operation."},
	AuthorizationSourceIPMismatch:              {403, "This request is not authorized to perform this operation using this source IP."},
	AuthorizationProtocolMismatch:              {403, "This request is not authorized to perform this operation using this protocol."},
	AuthorizationPermissionMismatch:            {403, "This request is not authorized to perform this operation using this permission."},
	AuthorizationServiceMismatch:               {403, "This request is not authorized to perform this operation using this service."},
	AuthorizationResourceTypeMismatch:          {403, "This request is not authorized to perform this operation using this resource type."},
	InvalidRange:                               {416, "The range specified is invalid for the current size of the resource."},
	MissingContentLengthHeader:                 {411, "The Content-Length header was not specified."},
	RequestBodyTooLarge:                        {413, "The request body is too large and exceeds the maximum permissible limit."},
	UnsupportedHttpVerb:                        {405, "The resource doesn't support the specified HTTP verb."},
	ResourceNotFound:                           {404, "The specified resource does not exist."},
	AccountAlreadyExists:                       {409, "The specified account already exists."},
	ResourceAlreadyExists:                      {409, "The specified resource already exists."},
	ResourceTypeMismatch:                       {409, "The specified resource type does not match the type of the existing resource."},
	InternalError:                              {500, "The server encountered an internal error. Please retry the request."},
	OperationTimedOut:                          {500, "The operation could not be completed within the permitted time."},
	ServerBusy:                                 {503, "The server is currently unable to receive requests. Please retry your request."},
	NotImplemented:                             {501, "The requested operation is not implemented by this server."},
	BlobNotFound:                               {404, "The specified blob does not exist."},
	ContainerNotFound:                          {404, "The specified container does not exist."},
	BlobAlreadyExists:                          {409, "The specified blob already exists."},
	ContainerAlreadyExists:                     {409, "The specified container already exists."},
	ContainerBeingDeleted:                      {409, "The specified container is being deleted."},
	ContainerDisabled:                          {409, "The specified container has been disabled by the administrator."},
	BlobArchived:                               {409, "This operation is not permitted on an archived blob."},
	BlobBeingRehydrated:                        {409, "This operation is not permitted because the blob is being rehydrated."},
	BlobNotArchived:                            {409, "Blob is not in the archive tier."},
	BlobOverwritten:                            {409, "The blob has been recreated since the previous snapshot was taken."},
	BlockCountExceedsLimit:                     {409, "The committed block count cannot exceed the maximum limit of 50,000 blocks."},
	BlockListTooLong:                           {400, "The block list may not contain more than 50,000 blocks."},
	CopyIdMismatch:                             {409, "The specified copy ID did not match the copy ID for the pending copy operation."},
	InvalidBlobType:                            {409, "The blob type is invalid for this operation."},
	InvalidSourceBlobType:                      {409, "The copy source blob type is invalid for this operation."},
	InvalidSourceBlobUrl:                       {409, "The source URL for a copy operation must be a valid Azure Storage blob URL."},
	CannotVerifyCopySource:                     {500, "Could not verify the copy source within the specified time."},
	LeaseAlreadyPresent:                        {409, "There is already a lease present."},
	LeaseAlreadyBroken:                         {409, "The lease has already been broken and cannot be broken again."},
	LeaseIdMismatchWithLeaseOperation:          {409, "The lease ID specified did not match the lease ID for the blob."},
	LeaseIsBreakingAndCannotBeAcquired:         {409, "The lease ID matched, but the lease is currently in breaking state and cannot be acquired until it is broken."},
	LeaseIsBreakingAndCannotBeChanged:          {409, "The lease ID matched, but the lease is currently in breaking state and cannot be changed."},
	LeaseIsBrokenAndCannotBeRenewed:            {409, "The lease ID matched, but the lease has been broken explicitly and cannot be renewed."},
	LeaseNotPresentWithLeaseOperation:          {409, "There is currently no lease on the blob."},
	NoPendingCopyOperation:                     {409, "There is currently no pending copy operation."},
	PendingCopyOperation:                       {409, "There is currently a pending copy operation."},
	PreviousSnapshotNotFound:                   {409, "The previous snapshot is not found."},
	PreviousSnapshotOperationNotSupported:      {409, "Differential Get Page Ranges is not supported on the previous snapshot."},
	SequenceNumberIncrementTooLarge:            {409, "The sequence number increment cannot be performed because it would result in overflow of the sequence number."},
	SnapshotCountExceeded:                      {409, "The snapshot count against this blob has been exceeded."},
	SnapshotsPresent:                           {409, "This operation is not permitted because the blob has snapshots."},
	SystemInUse:                                {409, "This blob is in use by the system."},
	AppendPositionConditionNotMet:              {412, "The append position condition specified was not met."},
	InfiniteLeaseDurationRequired:              {412, "The lease ID matched, but the specified lease must be an infinite-duration lease."},
	LeaseIdMismatchWithBlobOperation:           {412, "The lease ID specified did not match the lease ID for the blob."},
	LeaseIdMismatchWithContainerOperation:      {412, "The lease ID specified did not match the lease ID for the container."},
	LeaseIdMissing:                             {412, "There is currently a lease on the resource and no lease ID was specified in the request."},
	LeaseLost:                                  {412, "A lease ID was specified, but the lease for the resource has expired."},
	LeaseNotPresentWithBlobOperation:           {412, "There is currently no lease on the blob."},
	LeaseNotPresentWithContainerOperation:      {412, "There is currently no lease on the container."},
	MaxBlobSizeConditionNotMet:                 {412, "The max blob size condition specified was not met."},
	SequenceNumberConditionNotMet:              {412, "The sequence number condition specified was not met."},
	SourceConditionNotMet:                      {412, "The source condition specified using HTTP conditional header(s) is not met."},
	TargetConditionNotMet:                      {412, "The target condition specified using HTTP conditional header(s) is not met."},
	InvalidBlobOrBlock:                         {400, "The specified blob or block content is invalid."},
	InvalidBlockId:                             {400, "The specified block ID is invalid. The block ID must be Base64-encoded."},
	InvalidBlockList:                           {400, "The specified block list is invalid."},
	InvalidOperation:                           {400, "Invalid operation against a blob snapshot."},
	CopyAcrossAccountsNotSupported:             {400, "The copy source account and destination account must be the same."},
	InvalidVersionForPageBlobOperation:         {400, "All operations on page blobs require at least version 2009-09-19."},
	PreviousSnapshotCannotBeNewer:              {400, "The prevsnapshot query parameter value cannot be newer than snapshot query parameter value."},
	InvalidPageRange:                           {416, "The page range specified is invalid."},
	UnauthorizedBlobOverwrite:                  {403, "This request is not authorized to update this blob."},
	PublicAccessNotPermitted:                   {409, "Public access is not permitted on this storage account."},
	FeatureNotEnabled:                          {409, "The feature is not enabled on this account."},
	UnsatisfiableCondition:                     {400, "The condition specified is unsatisfiable."},
	BlobImmutableDueToPolicy:                   {409, "This operation is not permitted as the blob is immutable due to a policy."},
	QueueNotFound:                              {404, "The specified queue does not exist."},
	QueueAlreadyExists:                         {409, "The specified queue already exists."},
	QueueBeingDeleted:                          {409, "The specified queue is being deleted."},
	QueueDisabled:                              {409, "The specified queue has been disabled by the administrator."},
	QueueNotEmpty:                              {409, "The specified queue is not empty."},
	MessageNotFound:                            {404, "The specified message does not exist."},
	MessageTooLarge:                            {400, "The message exceeds the maximum allowed size."},
	PopReceiptMismatch:                         {400, "The specified pop receipt did not match the pop receipt for a dequeued message."},
	InvalidMarker:                              {400, "The specified marker is invalid."},
	TableNotFound:                              {404, "The table specified does not exist."},
	TableAlreadyExists:                         {409, "The table specified already exists."},
	TableBeingDeleted:                          {409, "The specified table is being deleted. Try operation later."},
	EntityNotFound:                             {404, "The specified entity does not exist."},
	EntityAlreadyExists:                        {409, "The specified entity already exists."},
	EntityTooLarge:                             {400, "The entity is larger than the maximum size permitted."},
	UpdateConditionNotSatisfied:                {412, "The update condition specified in the request was not satisfied."},
	DuplicatePropertiesSpecified:               {400, "A property is specified more than one time."},
	PropertiesNeedValue:                        {400, "Values have not been specified for all properties in the entity."},
	PropertyNameInvalid:                        {400, "The property name is invalid."},
	PropertyNameTooLong:                        {400, "The property name exceeds the maximum allowed length."},
	PropertyValueTooLarge:                      {400, "The property value is larger than the maximum size permitted."},
	TooManyProperties:                          {400, "The entity contains more properties than allowed."},
	InvalidValueType:                           {400, "The value specified is invalid."},
	InvalidDuplicateRow:                        {400, "The batch request contains multiple changes with same row key."},
	CommandsInBatchActOnDifferentPartitions:    {400, "All commands in a batch must operate on same entity group."},
	JsonFormatNotSupported:                     {415, "JSON format is not supported."},
	MethodNotAllowed:                           {405, "The requested method is not allowed on the specified resource."},
	AtomFormatNotSupported:                     {415, "Atom format is not supported."},
	XMethodNotUsingPost:                        {400, "The request uses X-HTTP-Method with an HTTP verb other than POST."},
	ShareNotFound:                              {404, "The specified share does not exist."},
	ShareAlreadyExists:                         {409, "The specified share already exists."},
	ShareBeingDeleted:                          {409, "The specified share is being deleted. Try operation later."},
	ShareDisabled:                              {403, "The specified share is disabled by the administrator."},
	ShareHasSnapshots:                          {409, "The share has snapshots and the operation requires no snapshots."},
	ShareSnapshotNotFound:                      {404, "The specified share snapshot does not exist."},
	ShareSnapshotOperationNotSupported:         {400, "The operation is not supported on a share snapshot."},
	ShareSnapshotCountExceeded:                 {409, "The total number of snapshots for the share is over the limit."},
	ShareSizeLimitReached:                      {413, "The specified share is full."},
	ParentNotFound:                             {404, "The specified parent path does not exist."},
	DirectoryNotEmpty:                          {409, "The specified directory is not empty."},
	CannotDeleteFileOrDirectory:                {409, "The file or directory could not be deleted because it is in use by an SMB client."},
	FileLockConflict:                           {409, "A portion of the specified file is locked by an SMB client."},
	InvalidFileOrDirectoryPathName:             {400, "File or directory path is too long or file or directory path has too many subdirectories."},
	SharingViolation:                           {409, "The specified resource is in use by an SMB client."},
	DeletePending:                              {409, "The specified resource is marked for deletion by an SMB client."},
	ReadOnlyAttribute:                          {409, "The specified resource is read-only and cannot be modified at this time."},
	ClientCacheFlushDelay:                      {500, "The specified resource state could not be flushed from an SMB client in the specified time."},
	FileShareProvisionedIopsInvalid:            {400, "The specified share provisioned IOPS is invalid."},
	CorsPreflightFailure:                       {403, "CORS not enabled or no matching rule found for this request."},
	FileInvalidPermission:                      {400, "The specified file permission is not valid."},
	FileInvalidPermissionKey:                   {400, "The specified file permission key does not exist in the share."},
	DeleteShareWhenSnapshotLeased:              {409, "Unable to delete share because one or more share snapshots have active leases."},
	BlobIsSealed:                               {409, "The specified blob is sealed and its contents cannot be modified."},
	EmptyTagName:                               {400, "The name of one of the tag key-value pairs is empty."},
	DuplicateTagNames:                          {400, "The tags specified contain duplicate names."},
	TagsTooLarge:                               {400, "The tags specified exceed the maximum permissible limit."},
	InvalidTag:                                 {400, "The tags specified are invalid. It contains characters that are not permitted."},
	ExceedsMaxBatchRequestCount:                {400, "The batch operation exceeds maximum number of allowed subrequests."},
	IncrementalCopyBlobMismatch:                {409, "The specified source blob is different than the copy source of the existing incremental copy blob."},
	IncrementalCopyOfEarlierSnapshotNotAllowed: {409, "The specified snapshot is earlier than the last snapshot copied into the incremental copy blob."},
	IncrementalCopySourceMustBeSnapshot:        {409, "The source for incremental copy request must be a snapshot."},
	OperationNotAllowedOnIncrementalCopyBlob:   {409, "This operation is not allowed on an incremental copy blob."},

	// Version-level immutability.
	BlobImmutableDueToLegalHold:            {409, "This operation is not permitted as the blob is immutable due to one or more legal holds."},
	ImmutabilityPolicyDeleteOnLockedPolicy: {409, "This operation is not permitted as the immutability policy is locked."},

	// Account kinds and settings.
	HierarchicalNamespaceNotEnabled: {400, "This operation is only supported on a hierarchical namespace account."},
	AccountRequiresHttps:            {400, "The account being accessed does not support http."},

	// Access tier conditions (Delete Blob, 2026-02-06).
	AccessTierChangeTimeConditionNotMet: {412, "The access tier change time condition specified using HTTP conditional header(s) is not met."},
}
