package hostile

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
)

// corpusSize is how many hostile requests the test sends; seed makes the
// corpus the same on every run, so a failure names a reproducible request.
const (
	corpusSize = 2400
	seed       = 20261124
)

// endpoint is one service under attack, with the resources that exist on
// it so that requests reach past the existence checks into the handlers.
type endpoint struct {
	svc  auth.Service
	base string // account URL, ending in "/"
	// ops are real operations (method, path and query) that half the
	// corpus starts from, so that the junk reaches deep into handlers
	// instead of stopping at routing.
	ops      []op
	paths    []string
	comps    []string
	restypes []string
}

// op is a real operation's method, path and query.
type op struct{ method, path, query string }

var (
	blobOps = []op{{"PUT", "ctr1/b1", ""}, {"PUT", "ctr1/b1", "comp=block&blockid=YmxvY2sx"}, {"PUT", "ctr1/b1", "comp=blocklist"},
		{"GET", "ctr1/b1", ""}, {"HEAD", "ctr1/b1", ""}, {"PUT", "ctr1/b1", "comp=lease"}, {"PUT", "ctr1/page", "comp=page"},
		{"GET", "ctr1/page", "comp=pagelist"}, {"PUT", "ctr1/append", "comp=appendblock"}, {"PUT", "ctr1/b1", "comp=tags"},
		{"PUT", "ctr1/b1", "comp=properties"}, {"PUT", "ctr1/b1", "comp=metadata"}, {"PUT", "ctr1", "restype=container&comp=acl"},
		{"GET", "ctr1", "restype=container&comp=list"}, {"POST", "ctr1", "restype=container&comp=batch"}, {"POST", "ctr1/b1", "comp=query"},
		{"PUT", "ctr1/copy", ""}, {"PUT", "", "restype=service&comp=properties"}, {"PUT", "ctr1/b1", "comp=snapshot"},
		{"DELETE", "ctr1/b1", ""}, {"PUT", "ctr1/b1", "comp=tier"}, {"GET", "", "comp=blobs"}, {"PUT", "ctr1", "restype=container&comp=lease"}}
	queueOps = []op{{"POST", "que1/messages", ""}, {"GET", "que1/messages", ""}, {"GET", "que1/messages", "peekonly=true"},
		{"PUT", "que1/messages/00000000-0000-0000-0000-000000000000", "popreceipt=AAAA&visibilitytimeout=5"},
		{"DELETE", "que1/messages/00000000-0000-0000-0000-000000000000", "popreceipt=AAAA"}, {"PUT", "que1", "comp=metadata"},
		{"PUT", "que1", "comp=acl"}, {"DELETE", "que1/messages", ""}, {"PUT", "", "restype=service&comp=properties"}}
	tableOps = []op{{"POST", "tab1", ""}, {"PUT", "tab1(PartitionKey='p',RowKey='r')", ""}, {"MERGE", "tab1(PartitionKey='p',RowKey='r')", ""},
		{"DELETE", "tab1(PartitionKey='p',RowKey='r')", ""}, {"GET", "tab1()", ""}, {"POST", "$batch", ""}, {"POST", "Tables", ""},
		{"PUT", "tab1", "comp=acl"}, {"PUT", "", "restype=service&comp=properties"}}
	fileOps = []op{{"PUT", "shr1/f2", "comp=range"}, {"PUT", "shr1/d1/f3", ""}, {"GET", "shr1/f2", ""}, {"PUT", "shr1/f2", "comp=lease"},
		{"PUT", "shr1", "restype=share&comp=acl"}, {"PUT", "shr1/d2", "restype=directory"}, {"PUT", "shr1/f4", "comp=rename"},
		{"PUT", "shr1", "restype=share&comp=filepermission"}, {"PUT", "shr1/f2", "comp=properties"}, {"GET", "shr1/d1", "restype=directory&comp=list"},
		{"GET", "shr1/f2", "comp=rangelist"}, {"PUT", "shr1/f2", "comp=forceclosehandles"}, {"PUT", "shr1/f5", ""}}
)

// TestHostileCorpus sends thousands of malformed requests, each signed with
// Shared Key so that it reaches a handler: bad methods, paths, headers,
// lengths, bodies (XML, JSON, batch), ranges and numbers. No request may
// get a 500, panic the server (the middleware turns a panic into a 500) or
// hang.
func TestHostileCorpus(t *testing.T) {
	in := lazulitest.Start(t, lazulitest.Options{InMemory: true})
	prepare(t, in)
	endpoints := []endpoint{
		{auth.Blob, in.BlobURL, blobOps, []string{"", "ctr1", "ctr1/b1", "ctr1/dir/b2", "ctr1/page", "ctr1/append", "nope", "nope/x", "$root", "ctr1/%00x", "CTR1/UPPER"},
			[]string{"list", "properties", "metadata", "acl", "lease", "block", "blocklist", "page", "pagelist", "appendblock", "seal",
				"snapshot", "copy", "tier", "tags", "blobs", "batch", "query", "undelete", "stats", "userdelegationkey", "expiry",
				"incrementalcopy", "rename", "legalhold", "immutabilityPolicies", "bogus"},
			[]string{"container", "service", "account", "bogus"}},
		{auth.Queue, in.QueueURL, queueOps, []string{"", "que1", "que1/messages", "que1/messages/00000000-0000-0000-0000-000000000000", "Q!", "nope/messages"},
			[]string{"list", "metadata", "acl", "properties", "stats", "bogus"}, []string{"service", "bogus"}},
		{auth.Table, in.TableURL, tableOps, []string{"", "Tables", "Tables('tab1')", "tab1", "tab1()", "tab1(PartitionKey='p',RowKey='r')",
			"tab1(PartitionKey='p'", "$batch", "tab1(PartitionKey='%27',RowKey='')"},
			[]string{"acl", "properties", "stats", "bogus"}, []string{"service", "bogus"}},
		{auth.File, in.FileURL, fileOps, []string{"", "shr1", "shr1/d1", "shr1/d1/f1", "shr1/f2", "nope", "shr1/nope/x", "shr1/..", "shr1/a%5Cb"},
			[]string{"list", "properties", "metadata", "acl", "lease", "range", "rangelist", "copy", "listhandles",
				"forceclosehandles", "filepermission", "snapshot", "rename", "stats", "userdelegationkey", "bogus"},
			[]string{"share", "directory", "service", "bogus"}},
	}
	rng := rand.New(rand.NewPCG(seed, seed))
	client := &http.Client{Timeout: 20 * time.Second}
	statuses := map[int]int{}
	var mu sync.Mutex
	var failures []string
	requests := make(chan *http.Request)
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Go(func() {
			for req := range requests {
				status, err := send(client, req)
				mu.Lock()
				switch {
				case err != nil:
					failures = append(failures, fmt.Sprintf("%s %s: %v", req.Method, req.URL, err))
				case status == http.StatusInternalServerError:
					failures = append(failures, fmt.Sprintf("%s %s %v: 500", req.Method, req.URL, req.Header))
				}
				statuses[status]++
				mu.Unlock()
			}
		})
	}
	for i := 0; i < corpusSize; i++ {
		requests <- hostileRequest(rng, endpoints[i%len(endpoints)])
	}
	close(requests)
	wg.Wait()
	var codes []int
	for c := range statuses {
		codes = append(codes, c)
	}
	sort.Ints(codes)
	var summary []string
	for _, c := range codes {
		summary = append(summary, fmt.Sprintf("%d×%d", c, statuses[c]))
	}
	t.Logf("%d hostile requests: %s", corpusSize, strings.Join(summary, " "))
	if len(failures) > 0 {
		sort.Strings(failures)
		t.Fatalf("%d requests failed; the first: %s", len(failures), strings.Join(failures[:min(len(failures), 10)], "\n"))
	}
}

// send sends one request (a pre-signed one; the body is read from its
// GetBody) and returns the status.
func send(client *http.Client, req *http.Request) (int, error) {
	resp, err := client.Do(req)
	if err != nil {
		// A connection the server closed on purpose (a body it refused to
		// drain) is not a failure; a timeout is a hang.
		if strings.Contains(err.Error(), "Client.Timeout") {
			return 0, err
		}
		return -1, nil
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, nil
}

var (
	methods   = []string{"GET", "PUT", "POST", "DELETE", "HEAD", "MERGE", "PATCH", "OPTIONS", "BREW", "put"}
	junkNums  = []string{"-1", "0", "1", "99999999999999999999", "abc", "1e9", "", " 7", "0x10", "-0", "3.5", "2147483648"}
	junkTimes = []string{"", "yesterday", "Mon, 32 Jan 2024 00:00:00 GMT", "2024-13-45T99:00:00Z", "Tue, 24 Nov 2026 10:00:00 GMT",
		"1970-01-01T00:00:00Z", "9999-12-31T23:59:59.9999999Z"}
	junkRanges = []string{"bytes=0-", "bytes=5-1", "bytes=-5", "bytes=0-511", "bytes=a-b", "bytes=0-99999999999999999999",
		"bytes=512-1023", "items=0-1", "bytes=0-0,2-3", "bytes=18446744073709551615-"}
	junkIDs   = []string{"", "x", "00000000-0000-0000-0000-000000000000", "{guid}", "YmxvY2s=", "%%%", strings.Repeat("a", 300)}
	junkETags = []string{"*", `"0x1"`, "W/\"x\"", "garbage", `""`, `W/"datetime'2024-01-01T00%3A00%3A00Z'"`}
	junkXML   = []string{"", "<", "<?xml version=\"1.0\"?>", "<BlockList><Latest>%%%</Latest></BlockList>",
		"<SignedIdentifiers><SignedIdentifier><Id>" + strings.Repeat("i", 100) + "</Id></SignedIdentifier></SignedIdentifiers>",
		"<StorageServiceProperties><Cors><CorsRule><MaxAgeInSeconds>-5</MaxAgeInSeconds></CorsRule></Cors></StorageServiceProperties>",
		"<Tags><TagSet><Tag><Key></Key><Value>v</Value></Tag></TagSet></Tags>", "<QueueMessage><MessageText>" + strings.Repeat("m", 70000) + "</MessageText></QueueMessage>",
		"<QueryRequest><QueryType>SQL</QueryType><Expression>SELECT * FROM BlobStorage WHERE (((</Expression></QueryRequest>",
		"<KeyInfo><Start>x</Start><Expiry>y</Expiry></KeyInfo>", "<!DOCTYPE x [<!ENTITY a \"aaaa\">]><x>&a;&a;</x>"}
	junkJSON = []string{"{", "[]", "null", `{"TableName":""}`, `{"TableName":"` + strings.Repeat("t", 70) + `"}`,
		`{"PartitionKey":"p","RowKey":"r","n@odata.type":"Edm.Int64","n":"x"}`, `{"PartitionKey":1}`,
		`{"permission":""}`, `{"a":` + strings.Repeat("[", 5000) + `}`, `{"PartitionKey":"p","RowKey":"r","b@odata.type":"Edm.Binary","b":"%%"}`}
	junkBatch = []string{"--b\r\nContent-Type: application/http\r\n\r\nDELETE /ctr1/b1 HTTP/1.1\r\n\r\n--b--",
		"--batch_x\r\nContent-Type: multipart/mixed; boundary=changeset_y\r\n\r\n--changeset_y\r\n\r\nPOST x HTTP/1.1\r\n--changeset_y--\r\n--batch_x--",
		"no boundary at all", "--b\r\n\r\n\r\n--b--"}
	junkHeaders = []string{"x-ms-range", "Range", "x-ms-lease-id", "x-ms-proposed-lease-id", "x-ms-lease-action", "x-ms-lease-duration",
		"x-ms-lease-break-period", "If-Match", "If-None-Match", "If-Modified-Since", "If-Unmodified-Since", "x-ms-if-tags",
		"x-ms-blob-type", "x-ms-blob-content-length", "x-ms-blob-sequence-number", "x-ms-sequence-number-action", "x-ms-copy-source",
		"x-ms-source-range", "x-ms-access-tier", "x-ms-rehydrate-priority", "Content-MD5", "x-ms-content-crc64", "x-ms-meta-a",
		"x-ms-meta-9bad", "x-ms-tags", "x-ms-blob-condition-maxsize", "x-ms-blob-condition-appendpos", "x-ms-delete-snapshots",
		"x-ms-write", "x-ms-type", "x-ms-content-length", "x-ms-file-attributes", "x-ms-file-creation-time",
		"x-ms-file-permission", "x-ms-file-permission-key", "x-ms-file-rename-source", "x-ms-handle-id", "x-ms-structured-body",
		"x-ms-structured-content-length", "x-ms-expiry-option", "x-ms-expiry-time", "x-ms-previous-snapshot-url",
		"x-ms-range-get-content-md5", "x-ms-range-get-content-crc64", "x-ms-blob-public-access", "x-ms-encryption-key",
		"Prefer", "Accept", "DataServiceVersion", "MaxDataServiceVersion", "x-ms-version", "Content-Type", "x-ms-popreceipt"}
	junkQuery = []string{"timeout", "maxresults", "marker", "prefix", "delimiter", "include", "snapshot", "versionid", "blockid",
		"blocklisttype", "prevsnapshot", "popreceipt", "visibilitytimeout", "messagettl", "numofmessages", "peekonly", "$filter",
		"$top", "$select", "NextPartitionKey", "NextRowKey", "sharesnapshot", "where", "deletetype", "sv", "si"}
	junkValues = []string{"", "x", "-1", "%00", "'", "PartitionKey eq 'p' and (", "a/b", "2024-01-01T00:00:00Z", "metadata,snapshots,bogus",
		"@container='ctr1' AND \"x\"='y'", strings.Repeat("z", 2000), "true", "1e309"}
)

func pick[T any](rng *rand.Rand, list []T) T { return list[rng.IntN(len(list))] }

// hostileRequest builds one malformed request for ep and signs it.
func hostileRequest(rng *rand.Rand, ep endpoint) *http.Request {
	if rng.IntN(2) == 0 {
		return fromOp(rng, ep, pick(rng, ep.ops))
	}
	q := url.Values{}
	if rng.IntN(3) > 0 {
		q.Set("comp", pick(rng, ep.comps))
	}
	if rng.IntN(2) == 0 {
		q.Set("restype", pick(rng, ep.restypes))
	}
	for n := rng.IntN(4); n > 0; n-- {
		q.Add(pick(rng, junkQuery), pick(rng, junkValues))
	}
	u := ep.base + pick(rng, ep.paths)
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return withJunk(rng, ep, pick(rng, methods), u)
}

// fromOp starts from a real operation and adds junk query parameters.
func fromOp(rng *rand.Rand, ep endpoint, o op) *http.Request {
	u := ep.base + o.path
	q := o.query
	for n := rng.IntN(3); n > 0; n-- {
		if q != "" {
			q += "&"
		}
		q += url.QueryEscape(pick(rng, junkQuery)) + "=" + url.QueryEscape(pick(rng, junkValues))
	}
	if q != "" {
		u += "?" + q
	}
	return withJunk(rng, ep, o.method, u)
}

// withJunk gives a request a junk body and junk headers, and signs it.
func withJunk(rng *rand.Rand, ep endpoint, method, u string) *http.Request {
	var body []byte
	switch rng.IntN(6) {
	case 0:
		body = []byte(pick(rng, junkXML))
	case 1:
		body = []byte(pick(rng, junkJSON))
	case 2:
		body = []byte(pick(rng, junkBatch))
	case 3:
		body = bytes.Repeat([]byte{byte(rng.IntN(256))}, rng.IntN(5000))
	}
	req, err := http.NewRequestWithContext(context.Background(), method, u, bytes.NewReader(body))
	if err != nil {
		req, _ = http.NewRequest("GET", ep.base, nil)
	}
	for n := rng.IntN(6); n > 0; n-- {
		h := pick(rng, junkHeaders)
		v := pick(rng, append(append(append(append([]string{}, junkNums...), junkTimes...), junkRanges...), append(junkIDs, junkETags...)...))
		req.Header.Set(h, v)
	}
	switch rng.IntN(8) {
	case 0:
		req.Header.Set("Content-Type", "multipart/mixed; boundary=b")
	case 1:
		req.Header.Set("Content-Type", "application/json")
	}
	if rng.IntN(10) == 0 {
		req.ContentLength = -1 // chunked
	}
	if req.Header.Get("x-ms-version") == "" || rng.IntN(4) > 0 {
		req.Header.Set("x-ms-version", "2025-11-05")
	}
	req.Header.Set("x-ms-date", time.Now().UTC().Format(http.TimeFormat))
	auth.SignSharedKey(req, ep.svc, lazulitest.Account, lazulitest.KeyBytes())
	return req
}

// prepare creates the resources the corpus's paths name.
func prepare(t *testing.T, in *lazulitest.Instance) {
	ctx := context.Background()
	b, err := azblob.NewClientFromConnectionString(in.ConnectionString, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.CreateContainer(ctx, "ctr1", nil); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"b1", "dir/b2"} {
		if _, err := b.UploadBuffer(ctx, "ctr1", name, bytes.Repeat([]byte("x"), 2048), nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.ServiceClient().NewContainerClient("ctr1").NewPageBlobClient("page").Create(ctx, 4096, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := b.ServiceClient().NewContainerClient("ctr1").NewAppendBlobClient("append").Create(ctx, nil); err != nil {
		t.Fatal(err)
	}
	q, err := azqueue.NewServiceClientFromConnectionString(in.ConnectionString, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.CreateQueue(ctx, "que1", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := q.NewQueueClient("que1").EnqueueMessage(ctx, "m", nil); err != nil {
		t.Fatal(err)
	}
	tc, err := aztables.NewServiceClientFromConnectionString(in.ConnectionString, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tc.CreateTable(ctx, "tab1", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := tc.NewClient("tab1").AddEntity(ctx, []byte(`{"PartitionKey":"p","RowKey":"r","n":1}`), nil); err != nil {
		t.Fatal(err)
	}
	f, err := service.NewClientFromConnectionString(in.ConnectionString, nil)
	if err != nil {
		t.Fatal(err)
	}
	sh := f.NewShareClient("shr1")
	if _, err := sh.Create(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := sh.NewDirectoryClient("d1").Create(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"d1/f1", "f2"} {
		dir, name := "", p
		if i := strings.LastIndexByte(p, '/'); i >= 0 {
			dir, name = p[:i], p[i+1:]
		}
		fc := sh.NewRootDirectoryClient().NewFileClient(name)
		if dir != "" {
			fc = sh.NewDirectoryClient(dir).NewFileClient(name)
		}
		if _, err := fc.Create(ctx, 1024, nil); err != nil {
			t.Fatal(err)
		}
	}
}
