package queue_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

func TestCreateQueue(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	md := map[string]*string{"color": ptr("red")}
	q := e.svc.NewQueueClient("orders")
	if _, err := q.Create(e.ctx, &azqueue.CreateOptions{Metadata: md}); err != nil {
		t.Fatal(err)
	}
	// Same metadata: 204, which the SDK also accepts as success.
	resp, body := e.raw(http.MethodPut, "/orders", "", http.Header{"X-Ms-Meta-Color": {"red"}})
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("re-create with the same metadata: %d %s", resp.StatusCode, body)
	}
	_, err := q.Create(e.ctx, &azqueue.CreateOptions{Metadata: map[string]*string{"color": ptr("blue")}})
	wantError(t, err, http.StatusConflict, "QueueAlreadyExists")
	_, err = q.Create(e.ctx, nil)
	wantError(t, err, http.StatusConflict, "QueueAlreadyExists")

	resp, body = e.raw(http.MethodPut, "/fresh", "", nil)
	if resp.StatusCode != http.StatusCreated || resp.Header.Get("x-ms-request-id") == "" || resp.Header.Get("x-ms-version") == "" {
		t.Fatalf("create: %d %v %s", resp.StatusCode, resp.Header, body)
	}
}

func TestQueueNameRules(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	for _, name := range []string{"Upper", "a--b", "-ab", "ab-", "a_b"} {
		_, err := e.svc.NewQueueClient(name).Create(e.ctx, nil)
		wantError(t, err, http.StatusBadRequest, "InvalidResourceName")
	}
	// A name of the wrong length is 400 OutOfRangeInput, "The specified
	// resource name length is not within the permissible limits."
	for _, name := range []string{"ab", strings.Repeat("a", 64)} {
		_, err := e.svc.NewQueueClient(name).Create(e.ctx, nil)
		wantError(t, err, http.StatusBadRequest, "OutOfRangeInput")
	}
	for _, name := range []string{"abc", strings.Repeat("a", 63), "a-b-1"} {
		if _, err := e.svc.NewQueueClient(name).Create(e.ctx, nil); err != nil {
			t.Errorf("create %q: %v", name, err)
		}
	}
}

func TestDeleteQueue(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	q := e.queue("doomed")
	for i := 0; i < 5; i++ {
		e.put(q, "m", nil)
	}
	if _, err := q.Delete(e.ctx, nil); err != nil {
		t.Fatal(err)
	}
	_, err := q.Delete(e.ctx, nil)
	wantError(t, err, http.StatusNotFound, "QueueNotFound")
	_, err = q.GetProperties(e.ctx, nil)
	wantError(t, err, http.StatusNotFound, "QueueNotFound")
	_, err = q.EnqueueMessage(e.ctx, "x", nil)
	wantError(t, err, http.StatusNotFound, "QueueNotFound")
	// A queue created again under the name starts empty.
	q = e.queue("doomed")
	if n := e.count(q); n != 0 {
		t.Fatalf("recreated queue has %d messages", n)
	}
}

func TestQueueMetadataAndCount(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	q := e.queue("meta")
	props, err := q.GetProperties(e.ctx, nil)
	if err != nil || len(props.Metadata) != 0 || *props.ApproximateMessagesCount != 0 {
		t.Fatalf("fresh queue: %+v %v", props, err)
	}
	_, err = q.SetMetadata(e.ctx, &azqueue.SetMetadataOptions{Metadata: map[string]*string{"a": ptr("1"), "b_2": ptr("two")}})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		e.put(q, "m", nil)
	}
	props, err = q.GetProperties(e.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if *props.ApproximateMessagesCount != 3 || len(props.Metadata) != 2 || *props.Metadata["A"] != "1" || *props.Metadata["B_2"] != "two" {
		t.Fatalf("properties: count %d metadata %v", *props.ApproximateMessagesCount, props.Metadata)
	}
	// Set Metadata replaces the whole set.
	if _, err := q.SetMetadata(e.ctx, &azqueue.SetMetadataOptions{Metadata: map[string]*string{"c": ptr("3")}}); err != nil {
		t.Fatal(err)
	}
	if props, _ = q.GetProperties(e.ctx, nil); len(props.Metadata) != 1 || props.Metadata["C"] == nil {
		t.Fatalf("metadata after replace: %v", props.Metadata)
	}
	resp, body := e.raw(http.MethodHead, "/meta?comp=metadata", "", nil)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("x-ms-approximate-messages-count") != "3" || body != "" {
		t.Fatalf("HEAD metadata: %d %v %q", resp.StatusCode, resp.Header, body)
	}
	_, err = q.SetMetadata(e.ctx, &azqueue.SetMetadataOptions{Metadata: map[string]*string{"1bad": ptr("x")}})
	wantError(t, err, http.StatusBadRequest, "InvalidMetadata")
	_, err = q.SetMetadata(e.ctx, &azqueue.SetMetadataOptions{Metadata: map[string]*string{"big": ptr(strings.Repeat("x", 8192))}})
	wantError(t, err, http.StatusBadRequest, "MetadataTooLarge")
	_, err = e.svc.NewQueueClient("missing").SetMetadata(e.ctx, nil)
	wantError(t, err, http.StatusNotFound, "QueueNotFound")
}

func TestQueueACL(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	q := e.queue("acl")
	acl, err := q.GetAccessPolicy(e.ctx, nil)
	if err != nil || len(acl.SignedIdentifiers) != 0 {
		t.Fatalf("fresh ACL: %+v %v", acl, err)
	}
	start := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	expiry := start.Add(time.Hour)
	ids := []*azqueue.SignedIdentifier{
		{ID: ptr("read"), AccessPolicy: &azqueue.AccessPolicy{Start: &start, Expiry: &expiry, Permission: ptr("r")}},
		{ID: ptr("all"), AccessPolicy: &azqueue.AccessPolicy{Permission: ptr("puar")}},
	}
	// Letters out of the service's order are refused, as the service does.
	_, err = q.SetAccessPolicy(e.ctx, &azqueue.SetAccessPolicyOptions{QueueACL: ids})
	wantError(t, err, http.StatusBadRequest, "InvalidXmlDocument")
	ids[1].AccessPolicy.Permission = ptr("raup")
	if _, err := q.SetAccessPolicy(e.ctx, &azqueue.SetAccessPolicyOptions{QueueACL: ids}); err != nil {
		t.Fatal(err)
	}
	acl, err = q.GetAccessPolicy(e.ctx, nil)
	if err != nil || len(acl.SignedIdentifiers) != 2 {
		t.Fatalf("ACL: %+v %v", acl, err)
	}
	got := acl.SignedIdentifiers[0]
	if *got.ID != "read" || !got.AccessPolicy.Start.Equal(start) || !got.AccessPolicy.Expiry.Equal(expiry) || *got.AccessPolicy.Permission != "r" {
		t.Fatalf("first identifier: %+v %+v", got, got.AccessPolicy)
	}
	if p := acl.SignedIdentifiers[1].AccessPolicy; *p.Permission != "raup" || p.Start != nil {
		t.Fatalf("second identifier: %+v", p)
	}
	six := make([]*azqueue.SignedIdentifier, 6)
	for i := range six {
		six[i] = &azqueue.SignedIdentifier{ID: ptr(strings.Repeat("i", i+1)), AccessPolicy: &azqueue.AccessPolicy{Permission: ptr("r")}}
	}
	_, err = q.SetAccessPolicy(e.ctx, &azqueue.SetAccessPolicyOptions{QueueACL: six})
	wantError(t, err, http.StatusBadRequest, "InvalidXmlDocument")
	long := []*azqueue.SignedIdentifier{{ID: ptr(strings.Repeat("i", 65)), AccessPolicy: &azqueue.AccessPolicy{Permission: ptr("r")}}}
	_, err = q.SetAccessPolicy(e.ctx, &azqueue.SetAccessPolicyOptions{QueueACL: long})
	wantError(t, err, http.StatusBadRequest, "InvalidXmlDocument")
	// An empty list removes every policy.
	if _, err := q.SetAccessPolicy(e.ctx, &azqueue.SetAccessPolicyOptions{}); err != nil {
		t.Fatal(err)
	}
	if acl, _ = q.GetAccessPolicy(e.ctx, nil); len(acl.SignedIdentifiers) != 0 {
		t.Fatalf("ACL after clearing: %d identifiers", len(acl.SignedIdentifiers))
	}
}

func TestListQueues(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	names := []string{"alpha-1", "alpha-2", "alpha-3", "beta", "gamma"}
	for _, n := range names {
		if _, err := e.svc.CreateQueue(e.ctx, n, &azqueue.CreateOptions{Metadata: map[string]*string{"name": ptr(n)}}); err != nil {
			t.Fatal(err)
		}
	}
	var all []string
	pages := 0
	pager := e.svc.NewListQueuesPager(&azqueue.ListQueuesOptions{MaxResults: ptr(int32(2)), Include: azqueue.ListQueuesInclude{Metadata: true}})
	for pager.More() {
		page, err := pager.NextPage(e.ctx)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, q := range page.Queues {
			all = append(all, *q.Name)
			if q.Metadata["name"] == nil || *q.Metadata["name"] != *q.Name {
				t.Errorf("queue %s metadata %v", *q.Name, q.Metadata)
			}
		}
	}
	if strings.Join(all, ",") != strings.Join(names, ",") || pages != 3 {
		t.Fatalf("listed %v in %d pages", all, pages)
	}
	pager = e.svc.NewListQueuesPager(&azqueue.ListQueuesOptions{Prefix: ptr("alpha")})
	page, err := pager.NextPage(e.ctx)
	if err != nil || len(page.Queues) != 3 || page.Queues[0].Metadata != nil || *page.Prefix != "alpha" {
		t.Fatalf("prefix page: %+v %v", page, err)
	}
	if pager.More() {
		t.Fatal("a complete listing reports more pages")
	}
	pager = e.svc.NewListQueuesPager(&azqueue.ListQueuesOptions{MaxResults: ptr(int32(0))})
	_, err = pager.NextPage(e.ctx)
	wantError(t, err, http.StatusBadRequest, "OutOfRangeQueryParameterValue")
}

func TestServicePropertiesAndStats(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	props, err := e.svc.GetServiceProperties(e.ctx, nil)
	if err != nil || props.Logging == nil || props.HourMetrics == nil {
		t.Fatalf("defaults: %+v %v", props, err)
	}
	rule := &azqueue.CORSRule{AllowedOrigins: ptr("http://example.com"), AllowedMethods: ptr("GET,PUT"),
		AllowedHeaders: ptr("x-ms-*"), ExposedHeaders: ptr("x-ms-request-id"), MaxAgeInSeconds: ptr(int32(60))}
	if _, err := e.svc.SetProperties(e.ctx, &azqueue.SetPropertiesOptions{CORS: []*azqueue.CORSRule{rule}}); err != nil {
		t.Fatal(err)
	}
	props, err = e.svc.GetServiceProperties(e.ctx, nil)
	if err != nil || len(props.CORS) != 1 || *props.CORS[0].AllowedOrigins != "http://example.com" {
		t.Fatalf("after set: %+v %v", props, err)
	}
	// The middleware answers preflights from the stored rules.
	req, _ := http.NewRequest(http.MethodOptions, e.in.QueueURL+"q/messages", nil)
	req.Header.Set("Origin", "http://example.com")
	req.Header.Set("Access-Control-Request-Method", "PUT")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Access-Control-Allow-Origin") != "http://example.com" {
		t.Fatalf("preflight: %d %v", resp.StatusCode, resp.Header)
	}
	// Stats are served only on the secondary endpoint; the primary answers
	// 400 InvalidQueryParameterValue (Get Queue Service Stats reference:
	// "the -secondary suffix is required").
	_, err = e.svc.GetStatistics(e.ctx, nil)
	wantError(t, err, http.StatusBadRequest, "InvalidQueryParameterValue")
	cred, err := azqueue.NewSharedKeyCredential(lazulitest.Account, lazulitest.Key)
	if err != nil {
		t.Fatal(err)
	}
	secondaryURL := strings.Replace(e.in.QueueURL, lazulitest.Account, lazulitest.Account+"-secondary", 1)
	secondary, err := azqueue.NewServiceClientWithSharedKeyCredential(secondaryURL, cred, e.clientOptions())
	if err != nil {
		t.Fatal(err)
	}
	stats, err := secondary.GetStatistics(e.ctx, nil)
	if err != nil || stats.GeoReplication == nil || *stats.GeoReplication.Status != azqueue.GeoReplicationStatusLive ||
		stats.GeoReplication.LastSyncTime == nil {
		t.Fatalf("stats on the secondary: %+v %v", stats, err)
	}
}

func TestUnknownPathsAndVerbs(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	e.queue("paths")
	cases := []struct {
		method, path string
		status       int
		code         string
	}{
		{http.MethodGet, "/paths/other", http.StatusBadRequest, "InvalidUri"},
		{http.MethodGet, "/paths/messages/a/b", http.StatusBadRequest, "InvalidUri"},
		{http.MethodPost, "/paths", http.StatusMethodNotAllowed, "UnsupportedHttpVerb"},
		{http.MethodGet, "/paths?comp=bogus", http.StatusBadRequest, "InvalidQueryParameterValue"},
		{http.MethodPut, "/paths/messages", http.StatusMethodNotAllowed, "UnsupportedHttpVerb"},
	}
	for _, c := range cases {
		resp, body := e.raw(c.method, c.path, "", nil)
		if resp.StatusCode != c.status || resp.Header.Get("x-ms-error-code") != c.code {
			t.Errorf("%s %s: %d %s %s, want %d %s", c.method, c.path, resp.StatusCode, resp.Header.Get("x-ms-error-code"), body, c.status, c.code)
		}
	}
}
