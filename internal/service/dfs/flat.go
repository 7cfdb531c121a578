package dfs

import (
	"net/http"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// flatAccountFeatures refuses the dfs endpoint to an account without a
// hierarchical namespace whose blob soft delete is on: 409
// EndpointUnsupportedAccountFeatures, "This endpoint does not support
// BlobStorageEvents or SoftDelete", the service's answer to such an
// account (Apache Arrow's azurefs.cc records it, telling flat accounts
// apart by it). The delete retention policy is the Blob service
// properties' (Set Blob Service Properties).
func (s *Service) flatAccountFeatures(r *http.Request) error {
	if s.hnsAccount(r) {
		return nil
	}
	var pol blobdata.Policy
	err := s.store.View(r.Context(), func(tx store.Tx) error {
		var err error
		pol, err = blobdata.LoadPolicy(tx, request.Of(r).Account, s.versioningDefault)
		return err
	})
	if err != nil {
		return err
	}
	if pol.Retention > 0 {
		return azerr.New(azerr.EndpointUnsupportedAccountFeatures)
	}
	return nil
}
