package blob

import (
	"net/http"

	"github.com/lazuli-storage/lazuli/internal/route"
)

// table is the Blob service's operations: method, level, restype, comp and
// distinguishing header. Operations answered with 501 belong to later work
// (snapshots, copies, page and append blobs, tags, tiers, batches).
func (s *Service) table() route.Table {
	const (
		svc = route.Service
		ctr = route.Container
		obj = route.Object
		GET = http.MethodGet
		HED = http.MethodHead
		PUT = http.MethodPut
		DEL = http.MethodDelete
		PST = http.MethodPost
	)
	t := route.Table{
		// Service.
		{Op: "ListContainers", Method: GET, Level: svc, Comp: "list", Handle: s.listContainers},
		{Op: "GetBlobServiceProperties", Method: GET, Level: svc, Restype: "service", Comp: "properties", Handle: s.getServiceProperties},
		{Op: "SetBlobServiceProperties", Method: PUT, Level: svc, Restype: "service", Comp: "properties", Handle: s.setServiceProperties},
		{Op: "GetBlobServiceStats", Method: GET, Level: svc, Restype: "service", Comp: "stats", Handle: s.getServiceStats},
		{Op: "GetUserDelegationKey", Method: PST, Level: svc, Restype: "service", Comp: "userdelegationkey", Handle: s.getUserDelegationKey},
		{Op: "FindBlobsByTags", Method: GET, Level: svc, Comp: "blobs", Handle: s.findBlobsByTags},
		{Op: "BlobBatch", Method: PST, Level: svc, Comp: "batch", Handle: s.blobBatch},
		// The JavaScript SDK's BlobBatchClient on a path-style service URL
		// takes the account segment for a container; Azurite serves that as
		// the service's batch (batch_scope_test.go).
		{Op: "BlobBatch", Method: PST, Level: svc, Restype: "container", Comp: "batch", Handle: s.blobBatch},

		// Containers.
		{Op: "CreateContainer", Method: PUT, Level: ctr, Restype: "container", Handle: s.createContainer},
		{Op: "GetContainerProperties", Method: GET, Level: ctr, Restype: "container", Handle: s.getContainerProperties},
		{Op: "GetContainerProperties", Method: HED, Level: ctr, Restype: "container", Handle: s.getContainerProperties},
		{Op: "GetContainerMetadata", Method: GET, Level: ctr, Restype: "container", Comp: "metadata", Handle: s.getContainerMetadata},
		{Op: "GetContainerMetadata", Method: HED, Level: ctr, Restype: "container", Comp: "metadata", Handle: s.getContainerMetadata},
		{Op: "SetContainerMetadata", Method: PUT, Level: ctr, Restype: "container", Comp: "metadata", Handle: s.setContainerMetadata},
		{Op: "GetContainerACL", Method: GET, Level: ctr, Restype: "container", Comp: "acl", Handle: s.getContainerACL},
		{Op: "GetContainerACL", Method: HED, Level: ctr, Restype: "container", Comp: "acl", Handle: s.getContainerACL},
		{Op: "SetContainerACL", Method: PUT, Level: ctr, Restype: "container", Comp: "acl", Handle: s.setContainerACL},
		{Op: "DeleteContainer", Method: DEL, Level: ctr, Restype: "container", Handle: s.deleteContainer},
		{Op: "LeaseContainer", Method: PUT, Level: ctr, Restype: "container", Comp: "lease", Handle: s.leaseContainer},
		{Op: "ListBlobs", Method: GET, Level: ctr, Restype: "container", Comp: "list", Handle: s.listBlobs},
		{Op: "RestoreContainer", Method: PUT, Level: ctr, Restype: "container", Comp: "undelete", Handle: s.restoreContainer},
		{Op: "RenameContainer", Method: PUT, Level: ctr, Restype: "container", Comp: "rename", Handle: s.renameContainer},
		{Op: "FindBlobsByTagsInContainer", Method: GET, Level: ctr, Restype: "container", Comp: "blobs", Handle: s.findBlobsInContainer},
		{Op: "ContainerBatch", Method: PST, Level: ctr, Restype: "container", Comp: "batch", Handle: s.containerBatch},

		// Blobs.
		{Op: "PutBlob", Method: PUT, Level: obj, Handle: s.putBlobOrCopy},
		{Op: "GetBlob", Method: GET, Level: obj, Handle: s.getBlob},
		{Op: "GetBlobProperties", Method: HED, Level: obj, Handle: s.getBlob},
		{Op: "DeleteBlob", Method: DEL, Level: obj, Handle: s.deleteBlob},
		{Op: "SetBlobProperties", Method: PUT, Level: obj, Comp: "properties", Handle: s.setBlobProperties},
		{Op: "GetBlobMetadata", Method: GET, Level: obj, Comp: "metadata", Handle: s.getBlobMetadata},
		{Op: "GetBlobMetadata", Method: HED, Level: obj, Comp: "metadata", Handle: s.getBlobMetadata},
		{Op: "SetBlobMetadata", Method: PUT, Level: obj, Comp: "metadata", Handle: s.setBlobMetadata},
		{Op: "LeaseBlob", Method: PUT, Level: obj, Comp: "lease", Handle: s.leaseBlob},
		{Op: "PutBlockFromURL", Method: PUT, Level: obj, Comp: "block", Header: "x-ms-copy-source", Handle: s.putBlockFromURL},
		{Op: "PutBlock", Method: PUT, Level: obj, Comp: "block", Handle: s.putBlock},
		{Op: "PutBlockList", Method: PUT, Level: obj, Comp: "blocklist", Handle: s.putBlockList},
		{Op: "GetBlockList", Method: GET, Level: obj, Comp: "blocklist", Handle: s.getBlockList},
		{Op: "SnapshotBlob", Method: PUT, Level: obj, Comp: "snapshot", Handle: s.snapshotBlob},
		{Op: "AbortCopyBlob", Method: PUT, Level: obj, Comp: "copy", Handle: s.abortCopy},
		{Op: "SetBlobTier", Method: PUT, Level: obj, Comp: "tier", Handle: s.setBlobTier},
		{Op: "GetBlobTags", Method: GET, Level: obj, Comp: "tags", Handle: s.getBlobTags},
		{Op: "SetBlobTags", Method: PUT, Level: obj, Comp: "tags", Handle: s.setBlobTags},
		{Op: "UndeleteBlob", Method: PUT, Level: obj, Comp: "undelete", Handle: s.undeleteBlob},
		{Op: "SetBlobExpiry", Method: PUT, Level: obj, Comp: "expiry", Handle: s.setBlobExpiry},
		{Op: "SetImmutabilityPolicy", Method: PUT, Level: obj, Comp: "immutabilityPolicies", Handle: s.setImmutabilityPolicy},
		{Op: "DeleteImmutabilityPolicy", Method: DEL, Level: obj, Comp: "immutabilityPolicies", Handle: s.deleteImmutabilityPolicy},
		{Op: "SetLegalHold", Method: PUT, Level: obj, Comp: "legalhold", Handle: s.setLegalHold},
		{Op: "PutPage", Method: PUT, Level: obj, Comp: "page", Handle: s.putPage},
		{Op: "GetPageRanges", Method: GET, Level: obj, Comp: "pagelist", Handle: s.getPageRanges},
		{Op: "IncrementalCopyBlob", Method: PUT, Level: obj, Comp: "incrementalcopy", Handle: s.incrementalCopy},
		{Op: "AppendBlock", Method: PUT, Level: obj, Comp: "appendblock", Handle: s.appendBlock},
		{Op: "SealAppendBlob", Method: PUT, Level: obj, Comp: "seal", Handle: s.sealAppendBlob},
		{Op: "QueryBlobContents", Method: PST, Level: obj, Comp: "query", Handle: s.queryBlob},
		// Resize and Update Sequence Number are Set Blob Properties with
		// these headers (a rule with a Header is tried first).
		{Op: "ResizePageBlob", Method: PUT, Level: obj, Comp: "properties", Header: "x-ms-blob-content-length", Handle: s.setPageProperties},
		{Op: "UpdateSequenceNumber", Method: PUT, Level: obj, Comp: "properties", Header: "x-ms-sequence-number-action", Handle: s.setPageProperties},
		{Op: "AppendBlockFromURL", Method: PUT, Level: obj, Comp: "appendblock", Header: "x-ms-copy-source", Handle: s.appendBlockFromURL},
		{Op: "PutPageFromURL", Method: PUT, Level: obj, Comp: "page", Header: "x-ms-copy-source", Handle: s.putPageFromURL},
	}
	// Get Account Information answers at every level.
	for _, level := range []route.Level{svc, ctr, obj} {
		for _, m := range []string{GET, HED} {
			t = append(t, route.Rule{Op: "GetAccountInformation", Method: m, Level: level, Restype: "account",
				Comp: "properties", Handle: s.getAccountInfo})
		}
	}
	return t
}
