package blob

import (
	"net/http"

	"github.com/lazuli-storage/lazuli/internal/frame/route"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
)

// table is the Blob service's operations: method, level, restype, comp and
// distinguishing headers or query parameters, each with who may call it:
// the letters of Azure's "Create an account SAS" and "Create a service SAS"
// pages, and the public access level that opens it to anonymous callers.
// A container SAS reaches blobs, never the container's own properties.
// Writes that may create a blob take c or w, and need w when they replace
// one (decided in the write's transaction).
func (s *Service) table() route.Table {
	const (
		svc    = route.Service
		ctr    = route.Container
		obj    = route.Object
		GET    = http.MethodGet
		HED    = http.MethodHead
		PUT    = http.MethodPut
		DEL    = http.MethodDelete
		PST    = http.MethodPost
		action = lease.HeaderAction
		source = "x-ms-copy-source"
		kind   = "x-ms-blob-type"
	)
	var (
		read     = auth.OnObject("r").PublicFrom(auth.PublicBlob)
		write    = auth.OnObject("w")
		create   = auth.OnObject("cw").Replacing("w")
		appends  = auth.OnObject("aw")
		tags     = auth.OnObject("t")
		immutize = auth.OnObject("i")
		ctrRead  = auth.OnContainer("r").NoServiceSAS().PublicFrom(auth.PublicContainer)
		ctrWrite = auth.OnContainer("w").NoServiceSAS()
	)
	t := route.Table{
		// Service.
		{Op: "ListContainers", Method: GET, Level: svc, Comp: "list", Access: auth.OnService("l"), Handle: s.listContainers},
		{Op: "GetBlobServiceProperties", Method: GET, Level: svc, Restype: "service", Comp: "properties", Access: auth.OnService("r"), Handle: s.getServiceProperties},
		{Op: "SetBlobServiceProperties", Method: PUT, Level: svc, Restype: "service", Comp: "properties", Access: auth.OnService("w"), Handle: s.setServiceProperties},
		{Op: "GetBlobServiceStats", Method: GET, Level: svc, Restype: "service", Comp: "stats", SecondaryOnly: true, Access: auth.OnService("r"), Handle: s.getServiceStats},
		{Op: "GetUserDelegationKey", Method: PST, Level: svc, Restype: "service", Comp: "userdelegationkey", Access: auth.OAuthOnly(), Handle: s.getUserDelegationKey},
		// Find (f) is an object permission ("Create an account SAS"), even
		// for the account-wide search.
		{Op: "FindBlobsByTags", Method: GET, Level: svc, Comp: "blobs", Access: auth.OnObject("f"), Handle: s.findBlobsByTags},
		// A batch needs any permission and, of an account SAS, any
		// resource type itself; each sub-request is authorized as its own
		// row says (Azurite's "SubmitBatch with SAS token" sends srt=o;
		// batch_sas_test.go).
		{Op: "BlobBatch", Method: PST, Level: svc, Comp: "batch", Access: auth.OnService(auth.AnyPermission).OfAnyResourceType(), Handle: s.blobBatch},
		// The JavaScript SDK's BlobBatchClient on a path-style service URL
		// takes the account segment for a container; Azurite serves that as
		// the service's batch (batch_scope_test.go).
		{Op: "BlobBatch", Method: PST, Level: svc, Restype: "container", Comp: "batch", Access: auth.OnService(auth.AnyPermission).OfAnyResourceType(), Handle: s.blobBatch},
		// Restore Container of a container with no name (the SDK's
		// RestoreContainer("", ...)): the service answers its missing
		// headers first (TestContainerRestoreFailures).
		{Op: "RestoreContainer", Method: PUT, Level: svc, Restype: "container", Comp: "undelete", Access: ctrWrite, Handle: s.restoreContainer},

		// Containers.
		{Op: "CreateContainer", Method: PUT, Level: ctr, Restype: "container", Access: auth.OnContainer("cw").NoServiceSAS(), Handle: s.createContainer},
		{Op: "GetContainerProperties", Method: GET, Level: ctr, Restype: "container", Access: ctrRead, Handle: s.getContainerProperties},
		{Op: "GetContainerProperties", Method: HED, Level: ctr, Restype: "container", Access: ctrRead, Handle: s.getContainerProperties},
		{Op: "GetContainerMetadata", Method: GET, Level: ctr, Restype: "container", Comp: "metadata", Access: ctrRead, Handle: s.getContainerMetadata},
		{Op: "GetContainerMetadata", Method: HED, Level: ctr, Restype: "container", Comp: "metadata", Access: ctrRead, Handle: s.getContainerMetadata},
		{Op: "SetContainerMetadata", Method: PUT, Level: ctr, Restype: "container", Comp: "metadata", Access: ctrWrite, Handle: s.setContainerMetadata},
		{Op: "GetContainerACL", Method: GET, Level: ctr, Restype: "container", Comp: "acl", Access: auth.OnContainer("r").OnlyAccountKey(), Handle: s.getContainerACL},
		{Op: "GetContainerACL", Method: HED, Level: ctr, Restype: "container", Comp: "acl", Access: auth.OnContainer("r").OnlyAccountKey(), Handle: s.getContainerACL},
		{Op: "SetContainerACL", Method: PUT, Level: ctr, Restype: "container", Comp: "acl", Access: auth.OnContainer("w").OnlyAccountKey(), Handle: s.setContainerACL},
		{Op: "DeleteContainer", Method: DEL, Level: ctr, Restype: "container", Access: auth.OnContainer("d").NoServiceSAS(), Handle: s.deleteContainer},
		// Lease actions are rows of their own: break also takes the delete
		// permission (2017-07-29 on), the others write; the last row
		// answers a missing or unknown action.
		{Op: "BreakContainerLease", Method: PUT, Level: ctr, Restype: "container", Comp: "lease", When: []route.Cond{route.HeaderIs(action, lease.Break)}, Access: auth.OnContainer("wd").NoServiceSAS(), Handle: s.leaseContainer},
		{Op: "AcquireContainerLease", Method: PUT, Level: ctr, Restype: "container", Comp: "lease", When: []route.Cond{route.HeaderIs(action, lease.Acquire)}, Access: ctrWrite, Handle: s.leaseContainer},
		{Op: "RenewContainerLease", Method: PUT, Level: ctr, Restype: "container", Comp: "lease", When: []route.Cond{route.HeaderIs(action, lease.Renew)}, Access: ctrWrite, Handle: s.leaseContainer},
		{Op: "ChangeContainerLease", Method: PUT, Level: ctr, Restype: "container", Comp: "lease", When: []route.Cond{route.HeaderIs(action, lease.Change)}, Access: ctrWrite, Handle: s.leaseContainer},
		{Op: "ReleaseContainerLease", Method: PUT, Level: ctr, Restype: "container", Comp: "lease", When: []route.Cond{route.HeaderIs(action, lease.Release)}, Access: ctrWrite, Handle: s.leaseContainer},
		{Op: "LeaseContainer", Method: PUT, Level: ctr, Restype: "container", Comp: "lease", Access: ctrWrite, Handle: s.leaseContainer},
		{Op: "ListBlobs", Method: GET, Level: ctr, Restype: "container", Comp: "list", Access: auth.OnContainer("l").PublicFrom(auth.PublicContainer), Handle: s.listBlobs},
		{Op: "RestoreContainer", Method: PUT, Level: ctr, Restype: "container", Comp: "undelete", Access: ctrWrite, Handle: s.restoreContainer},
		{Op: "RenameContainer", Method: PUT, Level: ctr, Restype: "container", Comp: "rename", Access: ctrWrite, Handle: s.renameContainer},
		{Op: "FindBlobsByTagsInContainer", Method: GET, Level: ctr, Restype: "container", Comp: "blobs", Access: auth.OnObject("f"), Handle: s.findBlobsInContainer},
		{Op: "ContainerBatch", Method: PST, Level: ctr, Restype: "container", Comp: "batch", Access: auth.OnContainer(auth.AnyPermission), Handle: s.containerBatch},

		// Blobs. A PUT without comp is one of six operations, told apart by
		// x-ms-copy-source, x-ms-blob-type and x-ms-requires-sync; the last
		// row answers a request that names no blob type.
		{Op: "PutBlobFromURL", Method: PUT, Level: obj, When: []route.Cond{route.HeaderSet(source), route.HeaderSet(kind)}, Access: create, Handle: s.putBlobFromURLRow},
		{Op: "CopyBlobFromURL", Method: PUT, Level: obj, When: []route.Cond{route.HeaderSet(source), route.HeaderIs("x-ms-requires-sync", "true")}, Access: create, Handle: s.copyFromURL},
		{Op: "CopyBlob", Method: PUT, Level: obj, When: []route.Cond{route.HeaderSet(source)}, Access: create, Handle: s.copyBlobRow},
		{Op: "PutBlob", Method: PUT, Level: obj, When: []route.Cond{route.HeaderIs(kind, "BlockBlob")}, Access: create, Handle: s.putBlob},
		{Op: "PutPageBlob", Method: PUT, Level: obj, When: []route.Cond{route.HeaderIs(kind, "PageBlob")}, Access: create, Handle: s.createPageBlob},
		{Op: "PutAppendBlob", Method: PUT, Level: obj, When: []route.Cond{route.HeaderIs(kind, "AppendBlob")}, Access: create, Handle: s.createAppendBlob},
		{Op: "PutBlob", Method: PUT, Level: obj, Access: create, Handle: s.putBlobOfNoKind},
		{Op: "GetBlob", Method: GET, Level: obj, Access: read, Handle: s.getBlob},
		{Op: "GetBlobProperties", Method: HED, Level: obj, Access: read, Handle: s.getBlob},
		// Deleting a version needs x, a permanent delete y (2019-12-12 and
		// 2020-02-10 on).
		{Op: "PermanentDeleteBlob", Method: DEL, Level: obj, When: []route.Cond{route.QueryIs("deletetype", "permanent")}, Access: auth.OnObject("y"), Handle: s.deleteBlob},
		{Op: "DeleteBlobVersion", Method: DEL, Level: obj, When: []route.Cond{route.QuerySet("versionid")}, Access: auth.OnObject("x"), Handle: s.deleteBlob},
		{Op: "DeleteBlob", Method: DEL, Level: obj, Access: auth.OnObject("d"), Handle: s.deleteBlob},
		{Op: "SetBlobProperties", Method: PUT, Level: obj, Comp: "properties", Access: write, Handle: s.setBlobProperties},
		{Op: "GetBlobMetadata", Method: GET, Level: obj, Comp: "metadata", Access: read, Handle: s.getBlobMetadata},
		{Op: "GetBlobMetadata", Method: HED, Level: obj, Comp: "metadata", Access: read, Handle: s.getBlobMetadata},
		{Op: "SetBlobMetadata", Method: PUT, Level: obj, Comp: "metadata", Access: write, Handle: s.setBlobMetadata},
		{Op: "BreakBlobLease", Method: PUT, Level: obj, Comp: "lease", When: []route.Cond{route.HeaderIs(action, lease.Break)}, Access: auth.OnObject("wd"), Handle: s.leaseBlob},
		{Op: "AcquireBlobLease", Method: PUT, Level: obj, Comp: "lease", When: []route.Cond{route.HeaderIs(action, lease.Acquire)}, Access: write, Handle: s.leaseBlob},
		{Op: "RenewBlobLease", Method: PUT, Level: obj, Comp: "lease", When: []route.Cond{route.HeaderIs(action, lease.Renew)}, Access: write, Handle: s.leaseBlob},
		{Op: "ChangeBlobLease", Method: PUT, Level: obj, Comp: "lease", When: []route.Cond{route.HeaderIs(action, lease.Change)}, Access: write, Handle: s.leaseBlob},
		{Op: "ReleaseBlobLease", Method: PUT, Level: obj, Comp: "lease", When: []route.Cond{route.HeaderIs(action, lease.Release)}, Access: write, Handle: s.leaseBlob},
		{Op: "LeaseBlob", Method: PUT, Level: obj, Comp: "lease", Access: write, Handle: s.leaseBlob},
		{Op: "PutBlockFromURL", Method: PUT, Level: obj, Comp: "block", When: []route.Cond{route.HeaderSet(source)}, Access: create, Handle: s.putBlockFromURL},
		{Op: "PutBlock", Method: PUT, Level: obj, Comp: "block", Access: create, Handle: s.putBlock},
		{Op: "PutBlockList", Method: PUT, Level: obj, Comp: "blocklist", Access: create, Handle: s.putBlockList},
		{Op: "GetBlockList", Method: GET, Level: obj, Comp: "blocklist", Access: read, Handle: s.getBlockList},
		{Op: "SnapshotBlob", Method: PUT, Level: obj, Comp: "snapshot", Access: auth.OnObject("cw"), Handle: s.snapshotBlob},
		{Op: "AbortCopyBlob", Method: PUT, Level: obj, Comp: "copy", Access: write, Handle: s.abortCopy},
		{Op: "SetBlobTier", Method: PUT, Level: obj, Comp: "tier", Access: write, Handle: s.setBlobTier},
		{Op: "GetBlobTags", Method: GET, Level: obj, Comp: "tags", Access: tags, Handle: s.getBlobTags},
		{Op: "SetBlobTags", Method: PUT, Level: obj, Comp: "tags", Access: tags, Handle: s.setBlobTags},
		{Op: "UndeleteBlob", Method: PUT, Level: obj, Comp: "undelete", Access: write, Handle: s.undeleteBlob},
		{Op: "SetBlobExpiry", Method: PUT, Level: obj, Comp: "expiry", Access: write, Handle: s.setBlobExpiry},
		{Op: "SetImmutabilityPolicy", Method: PUT, Level: obj, Comp: "immutabilityPolicies", Access: immutize, Handle: s.setImmutabilityPolicy},
		{Op: "DeleteImmutabilityPolicy", Method: DEL, Level: obj, Comp: "immutabilityPolicies", Access: immutize, Handle: s.deleteImmutabilityPolicy},
		{Op: "SetLegalHold", Method: PUT, Level: obj, Comp: "legalhold", Access: immutize, Handle: s.setLegalHold},
		{Op: "PutPage", Method: PUT, Level: obj, Comp: "page", Access: write, Handle: s.putPage},
		{Op: "GetPageRanges", Method: GET, Level: obj, Comp: "pagelist", Access: read, Handle: s.getPageRanges},
		{Op: "IncrementalCopyBlob", Method: PUT, Level: obj, Comp: "incrementalcopy", Access: create, Handle: s.incrementalCopy},
		{Op: "AppendBlock", Method: PUT, Level: obj, Comp: "appendblock", Access: appends, Handle: s.appendBlock},
		{Op: "SealAppendBlob", Method: PUT, Level: obj, Comp: "seal", Access: write, Handle: s.sealAppendBlob},
		{Op: "QueryBlobContents", Method: PST, Level: obj, Comp: "query", Access: read, Handle: s.queryBlob},
		// Resize and Update Sequence Number are Set Blob Properties with
		// these headers (a rule with conditions is tried first).
		{Op: "ResizePageBlob", Method: PUT, Level: obj, Comp: "properties", When: []route.Cond{route.HeaderSet("x-ms-blob-content-length")}, Access: write, Handle: s.setPageProperties},
		{Op: "UpdateSequenceNumber", Method: PUT, Level: obj, Comp: "properties", When: []route.Cond{route.HeaderSet("x-ms-sequence-number-action")}, Access: write, Handle: s.setPageProperties},
		{Op: "AppendBlockFromURL", Method: PUT, Level: obj, Comp: "appendblock", When: []route.Cond{route.HeaderSet(source)}, Access: appends, Handle: s.appendBlockFromURL},
		{Op: "PutPageFromURL", Method: PUT, Level: obj, Comp: "page", When: []route.Cond{route.HeaderSet(source)}, Access: write, Handle: s.putPageFromURL},
	}
	// Get Account Information answers at every level, to any SAS of the
	// account that signs that level.
	for _, level := range []struct {
		route.Level
		auth.ResourceType
	}{{svc, auth.ResourceService}, {ctr, auth.ResourceContainer}, {obj, auth.ResourceObject}} {
		for _, m := range []string{GET, HED} {
			t = append(t, route.Rule{Op: "GetAccountInformation", Method: m, Level: level.Level, Restype: "account",
				Comp: "properties", Access: &auth.Need{Resource: level.ResourceType, Perm: auth.AnyPermission}, Handle: s.getAccountInfo})
		}
	}
	return t
}
