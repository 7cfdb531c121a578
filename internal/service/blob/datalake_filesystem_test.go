package blob_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azdatalake"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azdatalake/datalakeerror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azdatalake/filesystem"
	dlservice "github.com/Azure/azure-sdk-for-go/sdk/storage/azdatalake/service"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

// The Data Lake Storage Gen2 SDK (azdatalake v1.4.2) sends its filesystem
// operations to the Blob endpoint as container operations: filesystem.Client
// Create, Delete, GetProperties and SetMetadata call the Blob container
// client, service.Client's NewListFileSystemsPager sends List Containers,
// and the SDK renames the Blob error codes (ContainerAlreadyExists becomes
// FileSystemAlreadyExists) itself. These tests use the SDK as its users
// write it, on the Blob endpoint's IP-style URL, so that a filesystem is a
// container to both APIs.

// datalakeOptions turn the SDK's retries off: a test must see each answer.
func datalakeOptions() azcore.ClientOptions {
	return azcore.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1}}
}

// filesystemClient is the Data Lake SDK's client of filesystem name.
func (e *env) filesystemClient(name string) *filesystem.Client {
	e.t.Helper()
	cred, err := azdatalake.NewSharedKeyCredential(lazulitest.Account, lazulitest.Key)
	if err != nil {
		e.t.Fatal(err)
	}
	fs, err := filesystem.NewClientWithSharedKeyCredential(strings.TrimSuffix(e.in.BlobURL, "/")+"/"+name, cred,
		&filesystem.ClientOptions{ClientOptions: datalakeOptions()})
	if err != nil {
		e.t.Fatal(err)
	}
	return fs
}

// datalakeService is the Data Lake SDK's client of the account.
func (e *env) datalakeService() *dlservice.Client {
	e.t.Helper()
	cred, err := azdatalake.NewSharedKeyCredential(lazulitest.Account, lazulitest.Key)
	if err != nil {
		e.t.Fatal(err)
	}
	svc, err := dlservice.NewClientWithSharedKeyCredential(e.in.BlobURL, cred,
		&dlservice.ClientOptions{ClientOptions: datalakeOptions()})
	if err != nil {
		e.t.Fatal(err)
	}
	return svc
}

func TestDatalakeFilesystemCreateAndProperties(t *testing.T) {
	e := start(t)
	fs := e.filesystemClient("lake")
	created, err := fs.Create(e.ctx, &filesystem.CreateOptions{Metadata: map[string]*string{"owner": to.Ptr("ann")}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = fs.Create(e.ctx, nil)
	wantCode(t, err, http.StatusConflict, string(datalakeerror.FileSystemAlreadyExists))

	props, err := fs.GetProperties(e.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if *props.ETag != *created.ETag || !props.LastModified.Equal(*created.LastModified) {
		t.Fatalf("properties ETag %s / %v, create gave %s / %v", *props.ETag, props.LastModified, *created.ETag, created.LastModified)
	}
	if v := props.Metadata["Owner"]; v == nil || *v != "ann" {
		t.Fatalf("metadata after create = %v", props.Metadata)
	}

	if _, err := fs.SetMetadata(e.ctx, &filesystem.SetMetadataOptions{Metadata: map[string]*string{"stage": to.Ptr("raw")}}); err != nil {
		t.Fatal(err)
	}
	props, err = fs.GetProperties(e.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v := props.Metadata["Stage"]; v == nil || *v != "raw" || len(props.Metadata) != 1 {
		t.Fatalf("metadata after set = %v", props.Metadata)
	}

	// The Blob API sees the filesystem as a container, with its metadata.
	ctr, err := e.svc.NewContainerClient("lake").GetProperties(e.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v := ctr.Metadata["Stage"]; v == nil || *v != "raw" {
		t.Fatalf("container metadata = %v", ctr.Metadata)
	}

	_, err = e.filesystemClient("absent").GetProperties(e.ctx, nil)
	wantCode(t, err, http.StatusNotFound, string(datalakeerror.FileSystemNotFound))
}

func TestDatalakeFilesystemSetMetadataConditions(t *testing.T) {
	e := start(t)
	fs := e.filesystemClient("lake")
	created, err := fs.Create(e.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	later := created.LastModified.Add(time.Hour)
	_, err = fs.SetMetadata(e.ctx, &filesystem.SetMetadataOptions{
		Metadata:         map[string]*string{"k": to.Ptr("v")},
		AccessConditions: &filesystem.AccessConditions{ModifiedAccessConditions: &filesystem.ModifiedAccessConditions{IfModifiedSince: &later}},
	})
	wantCode(t, err, http.StatusPreconditionFailed, string(datalakeerror.ConditionNotMet))
	earlier := created.LastModified.Add(-time.Hour)
	if _, err := fs.SetMetadata(e.ctx, &filesystem.SetMetadataOptions{
		Metadata:         map[string]*string{"k": to.Ptr("v")},
		AccessConditions: &filesystem.AccessConditions{ModifiedAccessConditions: &filesystem.ModifiedAccessConditions{IfModifiedSince: &earlier}},
	}); err != nil {
		t.Fatal(err)
	}
}

func TestDatalakeFilesystemDeleteConditions(t *testing.T) {
	e := start(t)
	fs := e.filesystemClient("lake")
	created, err := fs.Create(e.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	before := created.LastModified.Add(-time.Hour)
	_, err = fs.Delete(e.ctx, &filesystem.DeleteOptions{AccessConditions: &filesystem.AccessConditions{
		ModifiedAccessConditions: &filesystem.ModifiedAccessConditions{IfUnmodifiedSince: &before}}})
	wantCode(t, err, http.StatusPreconditionFailed, string(datalakeerror.ConditionNotMet))

	leaseID := "3f2504e0-4f89-11d3-9a0c-0305e82c3301"
	lc, err := lease.NewContainerClient(e.svc.NewContainerClient("lake"), &lease.ContainerClientOptions{LeaseID: &leaseID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lc.AcquireLease(e.ctx, -1, nil); err != nil {
		t.Fatal(err)
	}
	_, err = fs.Delete(e.ctx, nil)
	wantCode(t, err, http.StatusPreconditionFailed, string(datalakeerror.LeaseIDMissing))
	if _, err := fs.Delete(e.ctx, &filesystem.DeleteOptions{AccessConditions: &filesystem.AccessConditions{
		LeaseAccessConditions: &filesystem.LeaseAccessConditions{LeaseID: &leaseID}}}); err != nil {
		t.Fatal(err)
	}
	_, err = fs.GetProperties(e.ctx, nil)
	wantCode(t, err, http.StatusNotFound, string(datalakeerror.FileSystemNotFound))
}

func TestDatalakeListFilesystems(t *testing.T) {
	e := start(t)
	for _, name := range []string{"lake-a", "lake-b", "lake-c", "pond"} {
		if _, err := e.filesystemClient(name).Create(e.ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	pager := e.datalakeService().NewListFileSystemsPager(&dlservice.ListFileSystemsOptions{
		Prefix: to.Ptr("lake-"), MaxResults: to.Ptr(int32(2)), Include: dlservice.ListFileSystemsInclude{Metadata: to.Ptr(true)}})
	var names []string
	pages := 0
	for pager.More() {
		page, err := pager.NextPage(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, fs := range page.FileSystemItems {
			if fs.Properties == nil || fs.Properties.ETag == nil || fs.Properties.LastModified == nil {
				t.Fatalf("filesystem %s listed without ETag or Last-Modified", *fs.Name)
			}
			names = append(names, *fs.Name)
		}
	}
	if pages != 2 || len(names) != 3 || names[0] != "lake-a" || names[1] != "lake-b" || names[2] != "lake-c" {
		t.Fatalf("listed %v in %d pages, want [lake-a lake-b lake-c] in 2", names, pages)
	}
}
