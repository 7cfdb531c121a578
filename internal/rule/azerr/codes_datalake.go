package azerr

// Codes of the Data Lake Storage Gen2 (dfs) endpoint, as the REST page
// "Azure Data Lake Storage Gen2 error codes" lists them, kept apart from
// codes.go and added to its catalogue at start. Codes the dfs endpoint
// shares with Blob (ConditionNotMet, LeaseIdMissing, ...) are codes.go's.
const (
	FilesystemAlreadyExists             = "FilesystemAlreadyExists"
	FilesystemBeingDeleted              = "FilesystemBeingDeleted"
	FilesystemNotFound                  = "FilesystemNotFound"
	PathAlreadyExists                   = "PathAlreadyExists"
	PathNotFound                        = "PathNotFound"
	PathConflict                        = "PathConflict"
	InvalidFlushPosition                = "InvalidFlushPosition"
	SourcePathNotFound                  = "SourcePathNotFound"
	RenameDestinationParentPathNotFound = "RenameDestinationParentPathNotFound"
	InvalidRenameSourcePath             = "InvalidRenameSourcePath"
	InvalidSourceOrDestinationResource  = "InvalidSourceOrDestinationResourceType"
	LeaseIdMismatchWithPathOperation    = "LeaseIdMismatchWithPathOperation"
	LeaseNotPresentWithPathOperation    = "LeaseNotPresentWithPathOperation"
	InvalidSourceUri                    = "InvalidSourceUri"
	EndpointUnsupportedAccountFeatures  = "EndpointUnsupportedAccountFeatures"
)

func init() {
	for code, e := range map[string]entry{
		FilesystemAlreadyExists:             {409, "The specified filesystem already exists."},
		FilesystemBeingDeleted:              {409, "The specified filesystem is being deleted."},
		FilesystemNotFound:                  {404, "The specified filesystem does not exist."},
		PathAlreadyExists:                   {409, "The specified path already exists."},
		PathNotFound:                        {404, "The specified path does not exist."},
		PathConflict:                        {409, "The specified path, or an element of the path, exists and its resource type is invalid for this operation."},
		InvalidFlushPosition:                {400, "The uploaded data is not contiguous or the position query parameter value is not equal to the length of the file after appending the uploaded data."},
		SourcePathNotFound:                  {404, "The source path for a rename operation does not exist."},
		RenameDestinationParentPathNotFound: {404, "The parent directory of the destination path does not exist."},
		InvalidRenameSourcePath:             {400, "The source directory cannot be the same as the destination directory, nor can the destination be a subdirectory of the source directory."},
		InvalidSourceOrDestinationResource:  {409, "The source and destination resource type must be identical."},
		LeaseIdMismatchWithPathOperation:    {412, "The lease ID specified did not match the lease ID for the path."},
		LeaseNotPresentWithPathOperation:    {412, "There is currently no lease on the path."},
		InvalidSourceUri:                    {400, "The source URI is invalid."},
		EndpointUnsupportedAccountFeatures:  {409, "This endpoint does not support BlobStorageEvents or SoftDelete. Please disable these account features if you would like to use this endpoint."},
	} {
		catalogue[code] = e
	}
}
