package app_test

// The permission rules of Azure's "Create an account SAS" and "Create a
// service SAS" reference pages (learn.microsoft.com/rest/api/storageservices/
// create-account-sas and create-service-sas), operation by operation, written
// here independently of the route tables so that TestAuthorizationMatrix
// compares each row's declaration with the documentation, not with itself.
//
// Where the pages say nothing about an operation (it came later, or is
// Lazuli's name for a variant), the rule is the one of the documented
// operation it extends, and the comment says so.

// rule is what one operation needs, by the pages.
type rule struct {
	srt  byte   // account SAS resource type: 's' service, 'c' container, 'o' object
	perm string // SAS permission letters, any one of which grants it
	also string // a second set, one of which is needed too (table upserts)
	// replace is what replacing existing data needs instead of perm.
	replace string
	// serviceSAS: a service SAS may call it (with perm). The pages: a
	// container, share, queue or table SAS reaches blobs, files, messages,
	// entities and the lists of its container; never the container's own
	// properties, metadata, leases, creation or deletion, nor the service.
	serviceSAS bool
	// public is the least public access level of a container at which an
	// anonymous caller may call it (Blob only): "blob" or "container".
	public string
	// kind marks the operations outside the SAS letters: "key" (only the
	// account key: the ACLs), "oauth" (only a Bearer token), "any" (any
	// letter of an account SAS of the right resource type), "parts" (a
	// batch whose parts are authorized one by one).
	kind string
	// anySRT: an account SAS of any resource type opens it (the service
	// batch, whose sub-requests are each authorized against their own).
	anySRT bool
}

// Rows of the pages' tables, by service and operation name (route table
// Op). Letters: r read, a add, c create, w write, d delete, x delete
// version, y permanent delete, l list, t tags, f find, m move, e execute,
// o ownership, p permissions or process, i immutability, u update.
var expected = map[string]map[string]rule{
	"blob": {
		"ListContainers":           {srt: 's', perm: "l"},
		"GetBlobServiceProperties": {srt: 's', perm: "r"},
		"SetBlobServiceProperties": {srt: 's', perm: "w"},
		"GetBlobServiceStats":      {srt: 's', perm: "r"},
		"GetUserDelegationKey":     {srt: 's', kind: "oauth"},
		// "Find Blobs by Tags | Object (o) | Find (f)"; f is "valid for the
		// Object resource type only"; a container SAS with f finds in its
		// container ("Find: Container: Find blobs with index tags").
		"FindBlobsByTags":            {srt: 'o', perm: "f"},
		"FindBlobsByTagsInContainer": {srt: 'o', perm: "f", serviceSAS: true},
		// A batch carries Delete Blob and Set Blob Tier sub-requests, each
		// authorized on its own; the envelope takes any permission.
		// An account SAS of any resource type opens the service batch
		// (Azurite's "SubmitBatch with SAS token - batch deleting" sends
		// srt=o).
		"BlobBatch":      {srt: 's', kind: "any", anySRT: true},
		"ContainerBatch": {srt: 'c', kind: "any", serviceSAS: true},

		"CreateContainer":        {srt: 'c', perm: "cw"},
		"GetContainerProperties": {srt: 'c', perm: "r", public: "container"},
		"GetContainerMetadata":   {srt: 'c', perm: "r", public: "container"},
		"SetContainerMetadata":   {srt: 'c', perm: "w"},
		// "only the account owner may call this operation".
		"GetContainerACL": {srt: 'c', perm: "r", kind: "key"},
		"SetContainerACL": {srt: 'c', perm: "w", kind: "key"},
		"DeleteContainer": {srt: 'c', perm: "d"},
		// "Lease Container | Write (w) or Delete (d)": the delete permission
		// breaks a lease (2017-07-29 on), the other actions need write.
		"BreakContainerLease":   {srt: 'c', perm: "wd"},
		"AcquireContainerLease": {srt: 'c', perm: "w"},
		"RenewContainerLease":   {srt: 'c', perm: "w"},
		"ChangeContainerLease":  {srt: 'c', perm: "w"},
		"ReleaseContainerLease": {srt: 'c', perm: "w"},
		"LeaseContainer":        {srt: 'c', perm: "w"},
		"ListBlobs":             {srt: 'c', perm: "l", serviceSAS: true, public: "container"},
		// Restore and Rename Container write the container (as Set
		// Container Metadata).
		"RestoreContainer": {srt: 'c', perm: "w"},
		"RenameContainer":  {srt: 'c', perm: "w"},

		// "Put Blob (create new ...) | Create (c) or Write (w)", "(overwrite
		// existing ...) | Write (w)", for block, page and append blobs.
		"PutBlob":       {srt: 'o', perm: "cw", replace: "w", serviceSAS: true},
		"PutPageBlob":   {srt: 'o', perm: "cw", replace: "w", serviceSAS: true},
		"PutAppendBlob": {srt: 'o', perm: "cw", replace: "w", serviceSAS: true},
		// "Copy Blob (destination is new blob) | Create (c) or Write (w)",
		// "(destination is an existing blob) | Write (w)"; Copy Blob From
		// URL and Put Blob From URL write their destination the same way.
		"CopyBlob":            {srt: 'o', perm: "cw", replace: "w", serviceSAS: true},
		"CopyBlobFromURL":     {srt: 'o', perm: "cw", replace: "w", serviceSAS: true},
		"PutBlobFromURL":      {srt: 'o', perm: "cw", replace: "w", serviceSAS: true},
		"IncrementalCopyBlob": {srt: 'o', perm: "cw", replace: "w", serviceSAS: true},
		"AbortCopyBlob":       {srt: 'o', perm: "w", serviceSAS: true},
		"GetBlob":             {srt: 'o', perm: "r", serviceSAS: true, public: "blob"},
		"GetBlobProperties":   {srt: 'o', perm: "r", serviceSAS: true, public: "blob"},
		"GetBlobMetadata":     {srt: 'o', perm: "r", serviceSAS: true, public: "blob"},
		"SetBlobProperties":   {srt: 'o', perm: "w", serviceSAS: true},
		"SetBlobMetadata":     {srt: 'o', perm: "w", serviceSAS: true},
		// Resize and Update Sequence Number are Set Blob Properties.
		"ResizePageBlob":       {srt: 'o', perm: "w", serviceSAS: true},
		"UpdateSequenceNumber": {srt: 'o', perm: "w", serviceSAS: true},
		"GetBlobTags":          {srt: 'o', perm: "t", serviceSAS: true},
		"SetBlobTags":          {srt: 'o', perm: "t", serviceSAS: true},
		// "Delete Blob | Delete (d)"; "Delete version (x): Delete a blob
		// version"; "Permanently delete snapshot / version | y".
		"DeleteBlob":          {srt: 'o', perm: "d", serviceSAS: true},
		"DeleteBlobVersion":   {srt: 'o', perm: "x", serviceSAS: true},
		"PermanentDeleteBlob": {srt: 'o', perm: "y", serviceSAS: true},
		// "Lease Blob | Write (w) or Delete (d)", as for containers.
		"BreakBlobLease":   {srt: 'o', perm: "wd", serviceSAS: true},
		"AcquireBlobLease": {srt: 'o', perm: "w", serviceSAS: true},
		"RenewBlobLease":   {srt: 'o', perm: "w", serviceSAS: true},
		"ChangeBlobLease":  {srt: 'o', perm: "w", serviceSAS: true},
		"ReleaseBlobLease": {srt: 'o', perm: "w", serviceSAS: true},
		"LeaseBlob":        {srt: 'o', perm: "w", serviceSAS: true},
		"SnapshotBlob":     {srt: 'o', perm: "cw", serviceSAS: true},
		// The account SAS table lists w for Put Block and Put Block List;
		// the service SAS page's c ("write a new blob") is how an SDK
		// uploads a new blob in blocks with a create-only SAS, and
		// staging for or committing over an existing blob needs w (the
		// SDK's TestStageBlockWithUDSCreatePermission and ...OverwriteFails).
		"PutBlock":        {srt: 'o', perm: "cw", replace: "w", serviceSAS: true},
		"PutBlockFromURL": {srt: 'o', perm: "cw", replace: "w", serviceSAS: true},
		"PutBlockList":    {srt: 'o', perm: "cw", replace: "w", serviceSAS: true},
		"GetBlockList":    {srt: 'o', perm: "r", serviceSAS: true, public: "blob"},
		"PutPage":         {srt: 'o', perm: "w", serviceSAS: true},
		"PutPageFromURL":  {srt: 'o', perm: "w", serviceSAS: true},
		"GetPageRanges":   {srt: 'o', perm: "r", serviceSAS: true, public: "blob"},
		// "Append Block | Add (a) or Write (w)".
		"AppendBlock":        {srt: 'o', perm: "aw", serviceSAS: true},
		"AppendBlockFromURL": {srt: 'o', perm: "aw", serviceSAS: true},
		"SealAppendBlob":     {srt: 'o', perm: "w", serviceSAS: true},
		"SetBlobTier":        {srt: 'o', perm: "w", serviceSAS: true},
		"UndeleteBlob":       {srt: 'o', perm: "w", serviceSAS: true},
		"SetBlobExpiry":      {srt: 'o', perm: "w", serviceSAS: true},
		"QueryBlobContents":  {srt: 'o', perm: "r", serviceSAS: true, public: "blob"},
		// "Set Immutability Policy (i): set or delete the immutability
		// policy or legal hold on a blob".
		"SetImmutabilityPolicy":    {srt: 'o', perm: "i", serviceSAS: true},
		"DeleteImmutabilityPolicy": {srt: 'o', perm: "i", serviceSAS: true},
		"SetLegalHold":             {srt: 'o', perm: "i", serviceSAS: true},
		// Any SAS of the account, at the level it addresses.
		"GetAccountInformation": {kind: "any", serviceSAS: true},
	},
	"queue": {
		"GetQueueServiceProperties": {srt: 's', perm: "r"},
		"SetQueueServiceProperties": {srt: 's', perm: "w"},
		"ListQueues":                {srt: 's', perm: "l"},
		"GetQueueServiceStats":      {srt: 's', perm: "r"},
		"GetUserDelegationKey":      {srt: 's', kind: "oauth"},
		"CreateQueue":               {srt: 'c', perm: "cw"},
		"DeleteQueue":               {srt: 'c', perm: "d"},
		// Queue SAS "Read (r): Read metadata and properties".
		"GetQueueMetadata": {srt: 'c', perm: "r", serviceSAS: true},
		"SetQueueMetadata": {srt: 'c', perm: "w"},
		"GetQueueACL":      {srt: 'c', kind: "key"},
		"SetQueueACL":      {srt: 'c', kind: "key"},
		"PutMessage":       {srt: 'o', perm: "a", serviceSAS: true},
		"GetMessages":      {srt: 'o', perm: "p", serviceSAS: true},
		"PeekMessages":     {srt: 'o', perm: "r", serviceSAS: true},
		"DeleteMessage":    {srt: 'o', perm: "p", serviceSAS: true},
		// Clear Messages is d, which a queue SAS cannot carry.
		"ClearMessages": {srt: 'o', perm: "d"},
		"UpdateMessage": {srt: 'o', perm: "u", serviceSAS: true},
	},
	"table": {
		"GetTableServiceProperties": {srt: 's', perm: "r"},
		"SetTableServiceProperties": {srt: 's', perm: "w"},
		"GetTableServiceStats":      {srt: 's', perm: "r"},
		"QueryTables":               {srt: 'c', perm: "l"},
		// Query Tables of one table.
		"GetTable":    {srt: 'c', perm: "l"},
		"CreateTable": {srt: 'c', perm: "cw"},
		"DeleteTable": {srt: 'c', perm: "d"},
		"GetTableACL": {srt: 'c', kind: "key"},
		"SetTableACL": {srt: 'c', kind: "key"},
		// Table SAS: "Query (r): Get entities and query entities".
		"QueryEntities": {srt: 'o', perm: "r", serviceSAS: true},
		"GetEntity":     {srt: 'o', perm: "r", serviceSAS: true},
		"InsertEntity":  {srt: 'o', perm: "a", serviceSAS: true},
		// "Add (a) and Update (u)": "required for upsert operations".
		"InsertOrMergeEntity":   {srt: 'o', perm: "a", also: "u", serviceSAS: true},
		"InsertOrReplaceEntity": {srt: 'o', perm: "a", also: "u", serviceSAS: true},
		"UpdateEntity":          {srt: 'o', perm: "u", serviceSAS: true},
		"MergeEntity":           {srt: 'o', perm: "u", serviceSAS: true},
		"DeleteEntity":          {srt: 'o', perm: "d", serviceSAS: true},
		// A POST to an entity without a verb to tunnel: refused after
		// authorization, with any entity permission.
		"TunnelledEntityOp":      {srt: 'o', perm: "raud", serviceSAS: true},
		"EntityGroupTransaction": {srt: 'o', kind: "parts", serviceSAS: true},
	},
	"file": {
		"ListShares":               {srt: 's', perm: "l"},
		"GetFileServiceProperties": {srt: 's', perm: "r"},
		"SetFileServiceProperties": {srt: 's', perm: "w"},
		"GetUserDelegationKey":     {srt: 's', kind: "oauth"},
		"GetShareStats":            {srt: 'c', perm: "r"},
		"CreateShare":              {srt: 'c', perm: "cw"},
		"SnapshotShare":            {srt: 'c', perm: "cw"},
		"GetShareProperties":       {srt: 'c', perm: "r"},
		"SetShareProperties":       {srt: 'c', perm: "w"},
		"GetShareMetadata":         {srt: 'c', perm: "r"},
		"SetShareMetadata":         {srt: 'c', perm: "w"},
		"DeleteShare":              {srt: 'c', perm: "d"},
		"GetShareACL":              {srt: 'c', kind: "key"},
		"SetShareACL":              {srt: 'c', kind: "key"},
		// Share leases, permissions and restore are share writes and reads
		// (as Set and Get Share Properties); break takes d as for blobs.
		"BreakShareLease":   {srt: 'c', perm: "wd"},
		"AcquireShareLease": {srt: 'c', perm: "w"},
		"RenewShareLease":   {srt: 'c', perm: "w"},
		"ChangeShareLease":  {srt: 'c', perm: "w"},
		"ReleaseShareLease": {srt: 'c', perm: "w"},
		"LeaseShare":        {srt: 'c', perm: "w"},
		"CreatePermission":  {srt: 'c', perm: "cw"},
		"GetPermission":     {srt: 'c', perm: "r"},
		"RestoreShare":      {srt: 'c', perm: "w"},
		// Share SAS: "List (l): List files and directories in the share".
		"ListDirectoriesAndFiles": {srt: 'c', perm: "l", serviceSAS: true},
		"CreateDirectory":         {srt: 'o', perm: "cw", serviceSAS: true},
		"GetDirectoryProperties":  {srt: 'o', perm: "r", serviceSAS: true},
		"GetDirectoryMetadata":    {srt: 'o', perm: "r", serviceSAS: true},
		"SetDirectoryProperties":  {srt: 'o', perm: "w", serviceSAS: true},
		"SetDirectoryMetadata":    {srt: 'o', perm: "w", serviceSAS: true},
		"DeleteDirectory":         {srt: 'o', perm: "d", serviceSAS: true},
		"RenameDirectory":         {srt: 'o', perm: "w", serviceSAS: true},
		// Handles are the account's view of SMB sessions.
		"ListHandles":       {srt: 'o', perm: "l"},
		"ForceCloseHandles": {srt: 'o', perm: "w"},
		// "Create File (create new) | Create (c) or Write (w)", "(overwrite
		// existing) | Write (w)".
		"CreateFile": {srt: 'o', perm: "cw", replace: "w", serviceSAS: true},
		// The NFS link operations (answered 501) create or read a file.
		"CreateSymbolicLink": {srt: 'o', perm: "cw", serviceSAS: true},
		"GetSymbolicLink":    {srt: 'o', perm: "r", serviceSAS: true},
		"CreateHardLink":     {srt: 'o', perm: "cw", serviceSAS: true},
		// The account SAS table lists w for Copy File; the service SAS page
		// grants c "to copy a file to a new file". Lazuli takes c for a new
		// destination and w to replace one.
		"CopyFile":          {srt: 'o', perm: "cw", replace: "w", serviceSAS: true},
		"GetFile":           {srt: 'o', perm: "r", serviceSAS: true},
		"GetFileProperties": {srt: 'o', perm: "r", serviceSAS: true},
		"GetFileMetadata":   {srt: 'o', perm: "r", serviceSAS: true},
		"SetFileProperties": {srt: 'o', perm: "w", serviceSAS: true},
		"SetFileMetadata":   {srt: 'o', perm: "w", serviceSAS: true},
		"DeleteFile":        {srt: 'o', perm: "d", serviceSAS: true},
		"PutRange":          {srt: 'o', perm: "w", serviceSAS: true},
		"PutRangeFromURL":   {srt: 'o', perm: "w", serviceSAS: true},
		"ListRanges":        {srt: 'o', perm: "r", serviceSAS: true},
		"AbortCopyFile":     {srt: 'o', perm: "w", serviceSAS: true},
		"RenameFile":        {srt: 'o', perm: "w", serviceSAS: true},
		"BreakFileLease":    {srt: 'o', perm: "wd", serviceSAS: true},
		"AcquireFileLease":  {srt: 'o', perm: "w", serviceSAS: true},
		"ChangeFileLease":   {srt: 'o', perm: "w", serviceSAS: true},
		"ReleaseFileLease":  {srt: 'o', perm: "w", serviceSAS: true},
		"LeaseFile":         {srt: 'o', perm: "w", serviceSAS: true},
	},
}
