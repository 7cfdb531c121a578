package azurite_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
)

// populateServiceProps sets every service property Azurite keeps: the
// Blob service's all of them, the Queue and Table services' logging,
// metrics and CORS.
func populateServiceProps(t *testing.T, conn string) {
	t.Helper()
	ctx := context.Background()
	days := to.Ptr[int32](5)
	bc, err := azblob.NewClientFromConnectionString(conn, nil)
	must(t, err)
	_, err = bc.ServiceClient().SetProperties(ctx, &service.SetPropertiesOptions{
		CORS: []*service.CORSRule{{AllowedOrigins: to.Ptr("https://app.example"), AllowedMethods: to.Ptr("GET,PUT"),
			AllowedHeaders: to.Ptr("x-ms-meta-*"), ExposedHeaders: to.Ptr("x-ms-request-id"), MaxAgeInSeconds: to.Ptr[int32](300)}},
		Logging: &service.Logging{Version: to.Ptr("1.0"), Delete: to.Ptr(true), Read: to.Ptr(false), Write: to.Ptr(true),
			RetentionPolicy: &service.RetentionPolicy{Enabled: to.Ptr(true), Days: days}},
		HourMetrics: &service.Metrics{Version: to.Ptr("1.0"), Enabled: to.Ptr(true), IncludeAPIs: to.Ptr(true),
			RetentionPolicy: &service.RetentionPolicy{Enabled: to.Ptr(true), Days: to.Ptr[int32](7)}},
		MinuteMetrics: &service.Metrics{Version: to.Ptr("1.0"), Enabled: to.Ptr(false),
			RetentionPolicy: &service.RetentionPolicy{Enabled: to.Ptr(false)}},
		DeleteRetentionPolicy: &service.RetentionPolicy{Enabled: to.Ptr(true), Days: to.Ptr[int32](3)},
		StaticWebsite: &service.StaticWebsite{Enabled: to.Ptr(true), IndexDocument: to.Ptr("index.html"),
			ErrorDocument404Path: to.Ptr("404.html")}})
	must(t, err)
	qc, err := azqueue.NewServiceClientFromConnectionString(conn, nil)
	must(t, err)
	_, err = qc.SetProperties(ctx, &azqueue.SetPropertiesOptions{
		CORS: []*azqueue.CORSRule{{AllowedOrigins: to.Ptr("*"), AllowedMethods: to.Ptr("GET"), AllowedHeaders: to.Ptr("*"),
			ExposedHeaders: to.Ptr("*"), MaxAgeInSeconds: to.Ptr[int32](60)}},
		Logging: &azqueue.Logging{Version: to.Ptr("1.0"), Delete: to.Ptr(false), Read: to.Ptr(true), Write: to.Ptr(false),
			RetentionPolicy: &azqueue.RetentionPolicy{Enabled: to.Ptr(true), Days: days}},
		HourMetrics: &azqueue.Metrics{Version: to.Ptr("1.0"), Enabled: to.Ptr(true), IncludeAPIs: to.Ptr(false),
			RetentionPolicy: &azqueue.RetentionPolicy{Enabled: to.Ptr(false)}}})
	must(t, err)
	tc, err := aztables.NewServiceClientFromConnectionString(conn, nil)
	must(t, err)
	_, err = tc.SetProperties(ctx, aztables.ServiceProperties{
		Cors: []*aztables.CorsRule{{AllowedOrigins: to.Ptr("https://tables.example"), AllowedMethods: to.Ptr("GET,POST"),
			AllowedHeaders: to.Ptr("accept"), ExposedHeaders: to.Ptr("etag"), MaxAgeInSeconds: to.Ptr[int32](10)}},
		Logging: &aztables.Logging{Version: to.Ptr("1.0"), Delete: to.Ptr(true), Read: to.Ptr(true), Write: to.Ptr(true),
			RetentionPolicy: &aztables.RetentionPolicy{Enabled: to.Ptr(false)}},
		MinuteMetrics: &aztables.Metrics{Version: to.Ptr("1.0"), Enabled: to.Ptr(true), IncludeAPIs: to.Ptr(true),
			RetentionPolicy: &aztables.RetentionPolicy{Enabled: to.Ptr(true), Days: to.Ptr[int32](2)}}}, nil)
	must(t, err)
}

// observeServiceProps reads the three services' properties: what was set
// above, and the elements left unset as each server answers them.
func observeServiceProps(t *testing.T, conn string, v view) {
	t.Helper()
	ctx := context.Background()
	bc, err := azblob.NewClientFromConnectionString(conn, nil)
	must(t, err)
	blobProps, err := bc.ServiceClient().GetProperties(ctx, nil)
	must(t, err)
	// Azurite answers its own API version where none was set (its
	// ServiceHandler's default), without storing it.
	blobProps.DefaultServiceVersion = nil
	v.add("blob service properties", "%s", asJSON(t, blobProps.StorageServiceProperties))
	qc, err := azqueue.NewServiceClientFromConnectionString(conn, nil)
	must(t, err)
	queueProps, err := qc.GetServiceProperties(ctx, nil)
	must(t, err)
	v.add("queue service properties", "%s", asJSON(t, queueProps.StorageServiceProperties))
	tc, err := aztables.NewServiceClientFromConnectionString(conn, nil)
	must(t, err)
	tableProps, err := tc.GetProperties(ctx, nil)
	must(t, err)
	v.add("table service properties", "%s", asJSON(t, tableProps.ServiceProperties))
}

func asJSON(t *testing.T, x any) []byte {
	t.Helper()
	b, err := json.Marshal(x)
	must(t, err)
	return b
}

// validators are the Last-Modified and ETag of a blob as a client read
// them.
func validators(t *testing.T, conn, container, name string) (time.Time, azcore.ETag) {
	t.Helper()
	bc, err := azblob.NewClientFromConnectionString(conn, nil)
	must(t, err)
	props, err := bc.ServiceClient().NewContainerClient(container).NewBlobClient(name).GetProperties(context.Background(), nil)
	must(t, err)
	return *props.LastModified, *props.ETag
}

// checkConditionals sends the conditional requests a client holding the
// Last-Modified and ETag it read from Azurite sends after the switch:
// both are carried, so If-Modified-Since and If-None-Match are answered
// 304, If-Unmodified-Since and If-Match 200, and a write under If-Match
// succeeds. That write answers a new ETag, which the old one no longer
// matches (412).
func checkConditionals(t *testing.T, conn, container, name string, before time.Time, tag azcore.ETag) {
	t.Helper()
	bc, err := azblob.NewClientFromConnectionString(conn, nil)
	must(t, err)
	b := bc.ServiceClient().NewContainerClient(container).NewBlobClient(name)
	status := func(c blob.ModifiedAccessConditions) int {
		var raw *http.Response
		resp, err := b.DownloadStream(policy.WithCaptureResponse(context.Background(), &raw), &blob.DownloadStreamOptions{
			AccessConditions: &blob.AccessConditions{ModifiedAccessConditions: &c}})
		if code := statusOf(t, err); code != 0 {
			return code
		}
		if resp.Body != nil {
			resp.Body.Close()
		}
		return raw.StatusCode
	}
	for _, c := range []struct {
		what string
		cond blob.ModifiedAccessConditions
		want int
	}{
		{"If-Modified-Since the pre-import Last-Modified", blob.ModifiedAccessConditions{IfModifiedSince: &before}, http.StatusNotModified},
		{"If-Unmodified-Since the pre-import Last-Modified", blob.ModifiedAccessConditions{IfUnmodifiedSince: &before}, http.StatusOK},
		{"If-Match the pre-import ETag", blob.ModifiedAccessConditions{IfMatch: &tag}, http.StatusOK},
		{"If-None-Match the pre-import ETag", blob.ModifiedAccessConditions{IfNoneMatch: &tag}, http.StatusNotModified},
	} {
		if got := status(c.cond); got != c.want {
			t.Errorf("%s: %d, want %d", c.what, got, c.want)
		}
	}
	set, err := b.SetMetadata(context.Background(), map[string]*string{"after": to.Ptr("import")}, &blob.SetMetadataOptions{
		AccessConditions: &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: &tag}}})
	if err != nil {
		t.Fatalf("Set Blob Metadata If-Match the pre-import ETag: %v", err)
	}
	if *set.ETag == tag {
		t.Errorf("Set Blob Metadata kept the pre-import ETag %s", tag)
	}
	if got := status(blob.ModifiedAccessConditions{IfMatch: &tag}); got != http.StatusPreconditionFailed {
		t.Errorf("If-Match the pre-import ETag after a write: %d, want 412", got)
	}
	if got := status(blob.ModifiedAccessConditions{IfMatch: set.ETag}); got != http.StatusOK {
		t.Errorf("If-Match the ETag the write answered: %d, want 200", got)
	}
}

// checkContainerWrite changes an imported container's metadata: the
// container answers a new ETag from then on.
func checkContainerWrite(t *testing.T, conn, name string, tag azcore.ETag) {
	t.Helper()
	bc, err := azblob.NewClientFromConnectionString(conn, nil)
	must(t, err)
	c := bc.ServiceClient().NewContainerClient(name)
	set, err := c.SetMetadata(context.Background(), &container.SetMetadataOptions{Metadata: map[string]*string{"after": to.Ptr("import")}})
	must(t, err)
	props, err := c.GetProperties(context.Background(), nil)
	must(t, err)
	if *set.ETag == tag || *props.ETag != *set.ETag {
		t.Errorf("container %s: ETag %s before Set Container Metadata, %s answered by it, %s after it", name, tag, *set.ETag, *props.ETag)
	}
}

// statusOf is the status of a request's error response, 0 without one.
func statusOf(t *testing.T, err error) int {
	t.Helper()
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return re.StatusCode
	}
	must(t, err)
	return 0
}

// containerETag is a container's ETag as a client read it.
func containerETag(t *testing.T, conn, name string) azcore.ETag {
	t.Helper()
	bc, err := azblob.NewClientFromConnectionString(conn, nil)
	must(t, err)
	props, err := bc.ServiceClient().NewContainerClient(name).GetProperties(context.Background(), nil)
	must(t, err)
	return *props.ETag
}
