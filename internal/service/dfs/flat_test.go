package dfs_test

import (
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

// TestFlatAccountWithSoftDelete: the dfs endpoint of a flat account
// refuses every request while blob soft delete is on, as the service
// does; an account with a hierarchical namespace is served.
func TestFlatAccountWithSoftDelete(t *testing.T) {
	for _, hns := range []bool{false, true} {
		e := startWith(t, hns)
		e.filesystem("lake")
		cred, err := service.NewSharedKeyCredential(lazulitest.Account, lazulitest.Key)
		if err != nil {
			t.Fatal(err)
		}
		svc, err := service.NewClientWithSharedKeyCredential(e.in.BlobURL, cred, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.SetProperties(e.ctx, &service.SetPropertiesOptions{DeleteRetentionPolicy: &service.RetentionPolicy{
			Enabled: to.Ptr(true), Days: to.Ptr[int32](1)}}); err != nil {
			t.Fatal(err)
		}
		_, err = e.file("lake", "f").Create(e.ctx, nil)
		if hns && err != nil {
			t.Fatalf("hierarchical namespace with soft delete: %v", err)
		}
		if !hns {
			wantCode(t, err, http.StatusConflict, "EndpointUnsupportedAccountFeatures")
		}
	}
}
