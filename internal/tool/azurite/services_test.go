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

// lastModified is a blob's Last-Modified as a client read it.
func lastModified(t *testing.T, conn, container, name string) time.Time {
	t.Helper()
	bc, err := azblob.NewClientFromConnectionString(conn, nil)
	must(t, err)
	props, err := bc.ServiceClient().NewContainerClient(container).NewBlobClient(name).GetProperties(context.Background(), nil)
	must(t, err)
	return *props.LastModified
}

// checkConditionals sends the conditional GETs a client holding the
// Last-Modified it read from Azurite sends after the switch: it is
// carried, so If-Modified-Since is answered 304 and If-Unmodified-Since
// 200. (The ETag is not: Azurite's is random, Lazuli's is its
// Last-Modified in ticks.)
func checkConditionals(t *testing.T, conn, container, name string, before time.Time) {
	t.Helper()
	bc, err := azblob.NewClientFromConnectionString(conn, nil)
	must(t, err)
	b := bc.ServiceClient().NewContainerClient(container).NewBlobClient(name)
	status := func(c blob.ModifiedAccessConditions) int {
		var raw *http.Response
		resp, err := b.DownloadStream(policy.WithCaptureResponse(context.Background(), &raw), &blob.DownloadStreamOptions{
			AccessConditions: &blob.AccessConditions{ModifiedAccessConditions: &c}})
		var re *azcore.ResponseError
		if errors.As(err, &re) {
			return re.StatusCode
		}
		must(t, err)
		if resp.Body != nil {
			resp.Body.Close()
		}
		return raw.StatusCode
	}
	if got := status(blob.ModifiedAccessConditions{IfModifiedSince: &before}); got != http.StatusNotModified {
		t.Errorf("If-Modified-Since the pre-import Last-Modified: %d, want 304", got)
	}
	if got := status(blob.ModifiedAccessConditions{IfUnmodifiedSince: &before}); got != http.StatusOK {
		t.Errorf("If-Unmodified-Since the pre-import Last-Modified: %d, want 200", got)
	}
}
