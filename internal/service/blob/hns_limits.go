package blob

import (
	"net/http"

	"github.com/lazuli-storage/lazuli/internal/frame/route"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// What the Blob API refuses on an account with a hierarchical namespace.
//
// Page blobs: "Known issues with Azure Data Lake Storage" lists Put Blob
// (Page), Put Page, Get Page Ranges, Incremental Copy Blob and Put Page
// from URL as unsupported there, and the service answers 409
// FeatureNotYetSupportedForHierarchicalNamespaceAccounts (the answer quoted
// in MicrosoftDocs/azure-docs#108058 for page blobs on such accounts; the
// same code and message, "Specified feature is not yet supported for
// hierarchical namespace accounts.", are quoted from live answers to other
// Blob writes). Resize and Update Sequence Number exist only for page blobs.
//
// Blob index tags: "Blob Storage feature support in Azure Storage
// accounts" lists them as unsupported with a hierarchical namespace. Get
// Blob Tags is answered 400 InvalidQueryParameterValue naming comp=tags
// (the live answer in Azure/azure-sdk-for-net#39388), and so is Set Blob
// Tags; a write that sets tags with x-ms-tags gets the 409 above, as
// clients that drop the header on such accounts report. Only the writes
// whose REST pages list x-ms-tags set tags (taggingOps); the others do not
// read the header, there as on a flat account.

// pageBlobOps are the operations over page blobs.
var pageBlobOps = map[string]bool{
	"PutPageBlob": true, "PutPage": true, "PutPageFromURL": true, "GetPageRanges": true,
	"IncrementalCopyBlob": true, "ResizePageBlob": true, "UpdateSequenceNumber": true,
}

// tagOps are the operations on a blob's index tags.
var tagOps = map[string]bool{"GetBlobTags": true, "SetBlobTags": true}

// taggingOps are the writes that take x-ms-tags: Put Blob (of each blob
// type), Put Block List, Copy Blob, Copy Blob From URL and Put Blob From
// URL, the REST pages that list the header.
var taggingOps = map[string]bool{
	"PutBlob": true, "PutAppendBlob": true, "PutPageBlob": true, "PutBlockList": true,
	"CopyBlob": true, "CopyBlobFromURL": true, "PutBlobFromURL": true,
}

// limitOnHNS wraps each handler of t with the refusals above; on a flat
// account every request goes through as before.
func (s *Service) limitOnHNS(t route.Table) route.Table {
	for i := range t {
		op, next := t[i].Op, t[i].Handle
		t[i].Handle = func(w http.ResponseWriter, r *http.Request) error {
			if s.isHNS(r) {
				if err := refusedOnHNS(op, r); err != nil {
					return err
				}
			}
			return next(w, r)
		}
	}
	return t
}

// refusedOnHNS is the answer to operation op on an account with a
// hierarchical namespace, nil when the operation is served there.
func refusedOnHNS(op string, r *http.Request) error {
	switch {
	case pageBlobOps[op]:
		return azerr.New(azerr.FeatureNotYetSupportedForHierarchicalNamespaceAccounts)
	case tagOps[op]:
		return azerr.InvalidQuery("comp", "tags", "")
	case taggingOps[op] && r.Header.Get("X-Ms-Tags") != "":
		return azerr.New(azerr.FeatureNotYetSupportedForHierarchicalNamespaceAccounts)
	}
	return nil
}
