package blob_test

import (
	"encoding/xml"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"

	"github.com/lazuli-storage/lazuli/internal/service/blob"
)

// A deletion ID is the delete's time as a Windows file time, as the
// service's are: a Data Lake JS recording deletes at 07:35:42.1849086Z
// on 11 May 2021 and answers x-ms-deletion-id 132651921421849086.
func TestDeletionIDIsAFileTime(t *testing.T) {
	at := time.Date(2021, 5, 11, 7, 35, 42, 184908600, time.UTC)
	if got := blob.DeletionID(at); got != "132651921421849086" {
		t.Fatalf("DeletionID(%s) = %s", at, got)
	}
}

// showonly=deleted lists the soft-deleted paths only, each with its
// DeletionId and Deleted before its Properties, as the service answers;
// a value other than deleted or directories is 400, and so is showonly
// on a flat account.
func TestListBlobsShowOnly(t *testing.T) {
	e := startHNS(t)
	if _, err := e.svc.SetProperties(e.ctx, &service.SetPropertiesOptions{DeleteRetentionPolicy: &service.RetentionPolicy{
		Enabled: to.Ptr(true), Days: to.Ptr[int32](2)}}); err != nil {
		t.Fatal(err)
	}
	c := e.container("lake")
	e.upload(c, "kept", []byte("x"))
	gone := e.upload(c, "gone", []byte("x"))
	must(gone.Delete(e.ctx, nil)).on(t)
	deletedAt := e.in.Fake.Now()

	resp := e.raw(http.MethodGet, "lake?restype=container&comp=list&showonly=deleted", nil, nil)
	body, _ := io.ReadAll(resp.Body)
	var doc struct {
		Blobs []struct {
			Inner string `xml:",innerxml"`
			Name  string
		} `xml:"Blobs>Blob"`
	}
	if err := xml.Unmarshal(body, &doc); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %s: %v", resp.StatusCode, body, err)
	}
	if len(doc.Blobs) != 1 || doc.Blobs[0].Name != "gone" {
		t.Fatalf("deleted listing: %s", body)
	}
	want := "<Name>gone</Name><DeletionId>" + blob.DeletionID(deletedAt) + "</DeletionId><Deleted>true</Deleted><Properties>"
	if inner := doc.Blobs[0].Inner; !strings.HasPrefix(inner, want) ||
		!strings.Contains(inner, "<RemainingRetentionDays>2</RemainingRetentionDays>") || !strings.Contains(inner, "<DeletedTime>") {
		t.Fatalf("deleted path %s, want it to start %s", inner, want)
	}

	resp = e.raw(http.MethodGet, "lake?restype=container&comp=list&showonly=files", nil, nil)
	if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("x-ms-error-code") != "InvalidQueryParameterValue" {
		t.Fatalf("showonly=files: %d %s", resp.StatusCode, resp.Header.Get("x-ms-error-code"))
	}
	flat := start(t)
	flat.container("flat")
	resp = flat.raw(http.MethodGet, "flat?restype=container&comp=list&showonly=deleted", nil, nil)
	if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("x-ms-error-code") != "InvalidQueryParameterValue" {
		t.Fatalf("showonly on a flat account: %d %s", resp.StatusCode, resp.Header.Get("x-ms-error-code"))
	}
}

// maxresults is taken whatever the case of its name: azdatalake's
// ListDeletedPaths and ListDirectoryPaths send maxResults.
func TestListBlobsMaxResultsAnyCase(t *testing.T) {
	e := start(t)
	c := e.container("paged")
	e.upload(c, "a", []byte("x"))
	e.upload(c, "b", []byte("x"))
	resp := e.raw(http.MethodGet, "paged?restype=container&comp=list&maxResults=1", nil, nil)
	body, _ := io.ReadAll(resp.Body)
	var doc struct {
		Names      []string `xml:"Blobs>Blob>Name"`
		NextMarker string
	}
	if err := xml.Unmarshal(body, &doc); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("%d %s: %v", resp.StatusCode, body, err)
	}
	if len(doc.Names) != 1 || doc.NextMarker != "b" {
		t.Fatalf("maxResults=1 gave %v, next %q", doc.Names, doc.NextMarker)
	}
}
