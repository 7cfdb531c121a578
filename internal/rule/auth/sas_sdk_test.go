package auth

import (
	"crypto/tls"
	"net"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	blobsas "github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"
	filesas "github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/sas"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
	queuesas "github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue/sas"

	"github.com/lazuli-storage/lazuli/internal/base/clock"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// sasNow is the time every SAS test runs at.
var sasNow = time.Date(2025, 3, 14, 12, 0, 0, 0, time.UTC)

// sasCase is one request carrying a SAS, what the service would pass to
// Authorize for it, and the error codes expected from Authenticate and
// Authorize ("" for success).
type sasCase struct {
	name    string
	svc     Service
	query   string // the SAS as the SDK encoded it, plus any request parameters
	path    string // request path after the account
	https   bool
	remote  string
	advance time.Duration // clock movement after signing
	access  Access
	authn   string
	authz   string
}

func runSASCases(t *testing.T, cases []sasCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(string(tc.svc)+"/"+tc.name, func(t *testing.T) {
			clk := clock.NewFake(sasNow)
			clk.Advance(tc.advance)
			a := &Authenticator{Accounts: DevAccounts(), Clock: clk}
			r := httptest.NewRequest("GET", "http://127.0.0.1:10000/"+DevAccountName+tc.path+"?"+tc.query, nil)
			if tc.remote != "" {
				r.RemoteAddr = net.JoinHostPort(tc.remote, "50000")
			}
			if tc.https {
				r.TLS = &tls.ConnectionState{}
			}
			id, err := a.Authenticate(r, tc.svc, DevAccountName)
			if !codeIs(err, tc.authn) {
				t.Fatalf("Authenticate: got %v, want %q", detailOrNil(err), tc.authn)
			}
			if err != nil {
				return
			}
			if err := id.Authorize(tc.access); !codeIs(err, tc.authz) {
				t.Fatalf("Authorize: got %v, want %q", detailOrNil(err), tc.authz)
			}
		})
	}
}

func codeIs(err error, code string) bool {
	if code == "" {
		return err == nil
	}
	return azerr.Is(err, code)
}

func detailOrNil(err error) string {
	if err == nil {
		return "<nil>"
	}
	return detail(err)
}

func blobCred(t *testing.T) *azblob.SharedKeyCredential {
	cred, err := azblob.NewSharedKeyCredential(DevAccountName, devKey)
	if err != nil {
		t.Fatal(err)
	}
	return cred
}

// blobSAS signs v with the development key and returns the encoded query.
func blobSAS(t *testing.T, v blobsas.BlobSignatureValues) string {
	t.Helper()
	if v.ExpiryTime.IsZero() && v.Identifier == "" {
		v.ExpiryTime = sasNow.Add(time.Hour)
	}
	if v.StartTime.IsZero() && v.Identifier == "" {
		v.StartTime = sasNow.Add(-time.Hour)
	}
	q, err := v.SignWithSharedKey(blobCred(t))
	if err != nil {
		t.Fatal(err)
	}
	return q.Encode()
}

func blobAccess(rt ResourceType, perm, container, object string) Access {
	return Access{Service: Blob, ResourceType: rt, Perm: perm, Container: container, Object: object}
}

func TestBlobServiceSAS(t *testing.T) {
	snap := sasNow.Add(-time.Minute)
	snapText := snap.Format("2006-01-02T15:04:05.0000000Z07:00")
	container := blobSAS(t, blobsas.BlobSignatureValues{ContainerName: "c1", Permissions: "rl"})
	blob := blobSAS(t, blobsas.BlobSignatureValues{ContainerName: "c1", BlobName: "dir/b 1.txt", Permissions: "rw"})
	snapshot := blobSAS(t, blobsas.BlobSignatureValues{ContainerName: "c1", BlobName: "b1", SnapshotTime: snap, Permissions: "r"})
	version := blobSAS(t, blobsas.BlobSignatureValues{ContainerName: "c1", BlobName: "b1", BlobVersion: snapText, Permissions: "r"})
	directory := blobSAS(t, blobsas.BlobSignatureValues{ContainerName: "c1", Directory: "d1/d2", Permissions: "r"})
	httpsOnly := blobSAS(t, blobsas.BlobSignatureValues{ContainerName: "c1", Permissions: "r", Protocol: blobsas.ProtocolHTTPS})
	ipRange := blobSAS(t, blobsas.BlobSignatureValues{ContainerName: "c1", Permissions: "r",
		IPRange: blobsas.IPRange{Start: net.ParseIP("10.0.0.1"), End: net.ParseIP("10.0.0.5")}})
	future := blobSAS(t, blobsas.BlobSignatureValues{ContainerName: "c1", Permissions: "r", StartTime: sasNow.Add(time.Hour), ExpiryTime: sasNow.Add(2 * time.Hour)})
	withHeaders := blobSAS(t, blobsas.BlobSignatureValues{ContainerName: "c1", BlobName: "b1", Permissions: "r",
		ContentType: "text/plain; charset=utf-8", ContentDisposition: "attachment; filename=\"x y\"", CacheControl: "no-cache", EncryptionScope: "scope1"})
	readB1 := blobAccess(ResourceObject, "r", "c1", "b1")

	runSASCases(t, []sasCase{
		{name: "container sas reads a blob", svc: Blob, query: container, path: "/c1/b1", access: readB1},
		{name: "container sas lists", svc: Blob, query: container + "&restype=container&comp=list", path: "/c1",
			access: blobAccess(ResourceContainer, "l", "c1", "")},
		{name: "container sas cannot write", svc: Blob, query: container, path: "/c1/b1",
			access: blobAccess(ResourceObject, "cw", "c1", "b1"), authz: azerr.AuthorizationPermissionMismatch},
		{name: "container sas cannot create containers", svc: Blob, query: container + "&restype=container", path: "/c1",
			access: Access{Service: Blob, ResourceType: ResourceContainer, Perm: "c", Container: "c1", ServiceSASDenied: true},
			authz:  azerr.AuthorizationFailure},
		{name: "container sas on another container", svc: Blob, query: container, path: "/c2/b1", authn: azerr.AuthenticationFailed},
		{name: "container sas on the service", svc: Blob, query: container + "&comp=list", path: "/", authn: azerr.AuthenticationFailed},
		{name: "router target outside the signed container", svc: Blob, query: container, path: "/c1/b1",
			access: blobAccess(ResourceObject, "r", "c2", "b1"), authz: azerr.AuthorizationFailure},
		{name: "blob sas", svc: Blob, query: blob, path: "/c1/dir/b%201.txt", access: blobAccess(ResourceObject, "w", "c1", "dir/b 1.txt")},
		{name: "blob sas on another blob", svc: Blob, query: blob, path: "/c1/dir/b2.txt", authn: azerr.AuthenticationFailed},
		{name: "blob sas cannot list", svc: Blob, query: blob, path: "/c1/dir/b%201.txt",
			access: blobAccess(ResourceContainer, "l", "c1", ""), authz: azerr.AuthorizationResourceTypeMismatch},
		{name: "blob sas permission", svc: Blob, query: blob, path: "/c1/dir/b%201.txt",
			access: blobAccess(ResourceObject, "d", "c1", "dir/b 1.txt"), authz: azerr.AuthorizationPermissionMismatch},
		{name: "snapshot sas", svc: Blob, query: snapshot + "&snapshot=" + url.QueryEscape(snapText), path: "/c1/b1", access: readB1},
		{name: "snapshot sas on another snapshot", svc: Blob, query: snapshot + "&snapshot=" + url.QueryEscape(sasNow.Format(time.RFC3339)),
			path: "/c1/b1", authn: azerr.AuthenticationFailed},
		{name: "snapshot sas on the base blob", svc: Blob, query: snapshot, path: "/c1/b1", authn: azerr.AuthenticationFailed},
		{name: "version sas", svc: Blob, query: version + "&versionid=" + url.QueryEscape(snapText), path: "/c1/b1", access: readB1},
		{name: "directory sas", svc: Blob, query: directory, path: "/c1/d1/d2/f.txt", access: blobAccess(ResourceObject, "r", "c1", "d1/d2/f.txt")},
		{name: "directory sas outside", svc: Blob, query: directory, path: "/c1/d1/x/f.txt", authn: azerr.AuthenticationFailed},
		{name: "directory sas router target outside", svc: Blob, query: directory, path: "/c1/d1/d2/f.txt",
			access: blobAccess(ResourceObject, "r", "c1", "d1/d2x/f.txt"), authz: azerr.AuthorizationFailure},
		{name: "response header overrides and ses are signed", svc: Blob, query: withHeaders, path: "/c1/b1", access: readB1},
		{name: "tampered permissions", svc: Blob, query: strings.Replace(container, "sp=rl", "sp=rwl", 1), path: "/c1/b1", authn: azerr.AuthenticationFailed},
		{name: "tampered expiry", svc: Blob, query: replaceParam(container, "se", sasNow.Add(48*time.Hour).Format(time.RFC3339)), path: "/c1/b1", authn: azerr.AuthenticationFailed},
		{name: "expired", svc: Blob, query: container, path: "/c1/b1", advance: 2 * time.Hour, access: readB1, authz: azerr.AuthenticationFailed},
		{name: "not yet valid", svc: Blob, query: future, path: "/c1/b1", access: readB1, authz: azerr.AuthenticationFailed},
		{name: "https only over http", svc: Blob, query: httpsOnly, path: "/c1/b1", access: readB1, authz: azerr.AuthorizationProtocolMismatch},
		{name: "https only over https", svc: Blob, query: httpsOnly, path: "/c1/b1", https: true, access: readB1},
		{name: "ip inside range", svc: Blob, query: ipRange, path: "/c1/b1", remote: "10.0.0.3", access: readB1},
		{name: "ip outside range", svc: Blob, query: ipRange, path: "/c1/b1", remote: "10.0.0.9", access: readB1, authz: azerr.AuthorizationSourceIPMismatch},
		{name: "ipv6 client", svc: Blob, query: ipRange, path: "/c1/b1", remote: "::1", access: readB1, authz: azerr.AuthorizationSourceIPMismatch},
		{name: "sas used on the queue service", svc: Queue, query: container, path: "/c1", authn: azerr.AuthenticationFailed},
	})
}

// replaceParam returns the encoded query q with name set to value.
func replaceParam(q, name, value string) string {
	v, _ := url.ParseQuery(q)
	v.Set(name, value)
	return v.Encode()
}

func TestStoredAccessPolicy(t *testing.T) {
	start, expiry := sasNow.Add(-time.Hour), sasNow.Add(time.Hour)
	policies := map[string]*AccessPolicy{
		"full":    {Start: &start, Expiry: &expiry, Permission: "rl"},
		"noperm":  {Start: &start, Expiry: &expiry},
		"expired": {Expiry: &start, Permission: "r"},
	}
	lookup := func(id string) (*AccessPolicy, error) { return policies[id], nil }
	byPolicy := func(id, perm string) string {
		return blobSAS(t, blobsas.BlobSignatureValues{ContainerName: "c1", Identifier: id, Permissions: perm})
	}
	read := blobAccess(ResourceObject, "r", "c1", "b1")
	read.Policy = lookup
	write := read
	write.Perm = "w"
	noPolicies := read
	noPolicies.Policy = nil
	runSASCases(t, []sasCase{
		{name: "policy gives everything", svc: Blob, query: byPolicy("full", ""), path: "/c1/b1", access: read},
		{name: "policy permission applies", svc: Blob, query: byPolicy("full", ""), path: "/c1/b1", access: write, authz: azerr.AuthorizationPermissionMismatch},
		{name: "sas gives the permission", svc: Blob, query: byPolicy("noperm", "w"), path: "/c1/b1", access: write},
		{name: "permission in both", svc: Blob, query: byPolicy("full", "r"), path: "/c1/b1", access: read, authz: azerr.InvalidQueryParameterValue},
		{name: "no permission anywhere", svc: Blob, query: byPolicy("noperm", ""), path: "/c1/b1", access: read, authz: azerr.AuthenticationFailed},
		{name: "policy expired", svc: Blob, query: byPolicy("expired", ""), path: "/c1/b1", access: read, authz: azerr.AuthenticationFailed},
		{name: "unknown policy", svc: Blob, query: byPolicy("nope", "r"), path: "/c1/b1", access: read, authz: azerr.AuthenticationFailed},
		{name: "no policies at all", svc: Blob, query: byPolicy("full", ""), path: "/c1/b1", access: noPolicies, authz: azerr.AuthenticationFailed},
	})
}

func TestAccountSAS(t *testing.T) {
	blobAcct := func(perm, rt string) string {
		q, err := blobsas.AccountSignatureValues{Permissions: perm, ResourceTypes: rt, StartTime: sasNow.Add(-time.Hour),
			ExpiryTime: sasNow.Add(time.Hour), EncryptionScope: "scope1"}.SignWithSharedKey(blobCred(t))
		if err != nil {
			t.Fatal(err)
		}
		return q.Encode()
	}
	queueCred, err := azqueue.NewSharedKeyCredential(DevAccountName, devKey)
	if err != nil {
		t.Fatal(err)
	}
	queueAcct, err := queuesas.AccountSignatureValues{Permissions: "rp", ResourceTypes: "co", ExpiryTime: sasNow.Add(time.Hour)}.SignWithSharedKey(queueCred)
	if err != nil {
		t.Fatal(err)
	}
	tableCred, err := aztables.NewSharedKeyCredential(DevAccountName, devKey)
	if err != nil {
		t.Fatal(err)
	}
	tableAcct, err := aztables.AccountSASSignatureValues{Permissions: "ra", Services: "t", ResourceTypes: "sco", ExpiryTime: sasNow.Add(time.Hour),
		Protocol: aztables.SASProtocolHTTPSandHTTP}.Sign(tableCred)
	if err != nil {
		t.Fatal(err)
	}
	fileCred, err := service.NewSharedKeyCredential(DevAccountName, devKey)
	if err != nil {
		t.Fatal(err)
	}
	fileAcct, err := filesas.AccountSignatureValues{Permissions: "rl", ResourceTypes: "sco", ExpiryTime: sasNow.Add(time.Hour)}.SignWithSharedKey(fileCred)
	if err != nil {
		t.Fatal(err)
	}
	rwSCO := blobAcct("rwl", "sco")
	runSASCases(t, []sasCase{
		{name: "list containers", svc: Blob, query: rwSCO + "&comp=list", path: "/",
			access: Access{Service: Blob, ResourceType: ResourceService, Perm: "l"}},
		{name: "write a blob", svc: Blob, query: rwSCO, path: "/c1/b1", access: blobAccess(ResourceObject, "w", "c1", "b1")},
		{name: "account sas is not limited by ServiceSASDenied", svc: Blob, query: blobAcct("c", "c"), path: "/c1",
			access: Access{Service: Blob, ResourceType: ResourceContainer, Perm: "c", Container: "c1", ServiceSASDenied: true}},
		{name: "permission mismatch", svc: Blob, query: rwSCO, path: "/c1/b1", access: blobAccess(ResourceObject, "d", "c1", "b1"),
			authz: azerr.AuthorizationPermissionMismatch},
		{name: "resource type mismatch", svc: Blob, query: blobAcct("rwl", "o"), path: "/c1",
			access: blobAccess(ResourceContainer, "l", "c1", ""), authz: azerr.AuthorizationResourceTypeMismatch},
		{name: "service mismatch", svc: Queue, query: rwSCO, path: "/q1",
			access: Access{Service: Queue, ResourceType: ResourceContainer, Perm: "r", Container: "q1"}, authz: azerr.AuthorizationServiceMismatch},
		{name: "expired", svc: Blob, query: rwSCO, path: "/c1/b1", advance: 90 * time.Minute,
			access: blobAccess(ResourceObject, "r", "c1", "b1"), authz: azerr.AuthenticationFailed},
		{name: "tampered services", svc: Blob, query: replaceParam(rwSCO, "ss", "bq"), path: "/c1/b1", authn: azerr.AuthenticationFailed},
		{name: "tampered encryption scope", svc: Blob, query: replaceParam(rwSCO, "ses", "other"), path: "/c1/b1", authn: azerr.AuthenticationFailed},
		{name: "queue sdk without ses", svc: Queue, query: queueAcct.Encode(), path: "/q1/messages",
			access: Access{Service: Queue, ResourceType: ResourceObject, Perm: "p", Container: "q1"}},
		{name: "queue sdk resource type", svc: Queue, query: queueAcct.Encode(), path: "/",
			access: Access{Service: Queue, ResourceType: ResourceService, Perm: "l"}, authz: azerr.AuthorizationResourceTypeMismatch},
		{name: "table sdk", svc: Table, query: tableAcct.Encode(), path: "/Tables",
			access: Access{Service: Table, ResourceType: ResourceService, Perm: "a"}},
		{name: "table sdk permission", svc: Table, query: tableAcct.Encode(), path: "/t1()",
			access: Access{Service: Table, ResourceType: ResourceObject, Perm: "d", Container: "t1"}, authz: azerr.AuthorizationPermissionMismatch},
		{name: "file sdk", svc: File, query: fileAcct.Encode(), path: "/s1/dir/f.txt",
			access: Access{Service: File, ResourceType: ResourceObject, Perm: "r", Container: "s1", Object: "dir/f.txt"}},
		{name: "file sdk on blob", svc: Blob, query: fileAcct.Encode(), path: "/c1/b1",
			access: blobAccess(ResourceObject, "r", "c1", "b1"), authz: azerr.AuthorizationServiceMismatch},
	})
}

func TestQueueTableFileServiceSAS(t *testing.T) {
	queueCred, err := azqueue.NewSharedKeyCredential(DevAccountName, devKey)
	if err != nil {
		t.Fatal(err)
	}
	queue, err := queuesas.QueueSignatureValues{QueueName: "q1", Permissions: "raup", StartTime: sasNow.Add(-time.Hour),
		ExpiryTime: sasNow.Add(time.Hour), Protocol: queuesas.ProtocolHTTPSandHTTP}.SignWithSharedKey(queueCred)
	if err != nil {
		t.Fatal(err)
	}
	tableCred, err := aztables.NewSharedKeyCredential(DevAccountName, devKey)
	if err != nil {
		t.Fatal(err)
	}
	table, err := aztables.SASSignatureValues{TableName: "MyTable", Permissions: "ra", ExpiryTime: sasNow.Add(time.Hour)}.Sign(tableCred)
	if err != nil {
		t.Fatal(err)
	}
	// The SDK signs spk/srk/epk/erk but leaves them out of the query it
	// returns, so they are added here as a client using it must.
	ranged, err := aztables.SASSignatureValues{TableName: "t2", Permissions: "r", ExpiryTime: sasNow.Add(time.Hour),
		StartPartitionKey: "p1", StartRowKey: "r1", EndPartitionKey: "p5", EndRowKey: "r5"}.Sign(tableCred)
	if err != nil {
		t.Fatal(err)
	}
	ranged += "&spk=p1&srk=r1&epk=p5&erk=r5"
	fileCred, err := service.NewSharedKeyCredential(DevAccountName, devKey)
	if err != nil {
		t.Fatal(err)
	}
	fileSAS := func(v filesas.SignatureValues) string {
		v.ExpiryTime = sasNow.Add(time.Hour)
		q, err := v.SignWithSharedKey(fileCred)
		if err != nil {
			t.Fatal(err)
		}
		return q.Encode()
	}
	shareSAS := fileSAS(filesas.SignatureValues{ShareName: "s1", Permissions: "rl"})
	oneFile := fileSAS(filesas.SignatureValues{ShareName: "s1", FilePath: "d/f 1.txt", Permissions: "rw"})
	entity := func(table, perm string) Access {
		return Access{Service: Table, ResourceType: ResourceObject, Perm: perm, Container: table}
	}
	fileAccess := func(rt ResourceType, perm, path string) Access {
		return Access{Service: File, ResourceType: rt, Perm: perm, Container: "s1", Object: path}
	}
	runSASCases(t, []sasCase{
		{name: "dequeue", svc: Queue, query: queue.Encode(), path: "/q1/messages",
			access: Access{Service: Queue, ResourceType: ResourceObject, Perm: "p", Container: "q1"}},
		{name: "queue metadata read", svc: Queue, query: queue.Encode() + "&comp=metadata", path: "/q1",
			access: Access{Service: Queue, ResourceType: ResourceContainer, Perm: "r", Container: "q1"}},
		{name: "another queue", svc: Queue, query: queue.Encode(), path: "/q2/messages", authn: azerr.AuthenticationFailed},
		{name: "queue delete is account only", svc: Queue, query: queue.Encode(), path: "/q1",
			access: Access{Service: Queue, ResourceType: ResourceContainer, Perm: "d", Container: "q1", ServiceSASDenied: true}, authz: azerr.AuthorizationFailure},
		{name: "insert entity", svc: Table, query: table, path: "/MyTable", access: entity("mytable", "a")},
		{name: "table name case", svc: Table, query: table, path: "/mytable()", access: entity("MyTable", "r")},
		{name: "table permission", svc: Table, query: table, path: "/MyTable", access: entity("MyTable", "d"), authz: azerr.AuthorizationPermissionMismatch},
		{name: "another table", svc: Table, query: table, path: "/Other()", access: entity("Other", "r"), authz: azerr.AuthorizationFailure},
		{name: "delete the table", svc: Table, query: table, path: "/Tables('MyTable')",
			access: Access{Service: Table, ResourceType: ResourceContainer, Perm: "d", Container: "MyTable"}, authz: azerr.AuthorizationResourceTypeMismatch},
		{name: "ranged table sas", svc: Table, query: ranged, path: "/t2()", access: entity("t2", "r")},
		{name: "ranged table sas tampered", svc: Table, query: replaceParam(ranged, "epk", "p9"), path: "/t2()", authn: azerr.AuthenticationFailed},
		{name: "share sas lists", svc: File, query: shareSAS + "&restype=directory&comp=list", path: "/s1/d", access: fileAccess(ResourceContainer, "l", "")},
		{name: "share sas reads a file", svc: File, query: shareSAS, path: "/s1/d/x.txt", access: fileAccess(ResourceObject, "r", "d/x.txt")},
		{name: "share sas cannot write", svc: File, query: shareSAS, path: "/s1/d/x.txt", access: fileAccess(ResourceObject, "w", "d/x.txt"),
			authz: azerr.AuthorizationPermissionMismatch},
		{name: "file sas", svc: File, query: oneFile, path: "/s1/d/f%201.txt", access: fileAccess(ResourceObject, "w", "d/f 1.txt")},
		{name: "file sas on another file", svc: File, query: oneFile, path: "/s1/d/g.txt", authn: azerr.AuthenticationFailed},
	})
}

func TestTableRange(t *testing.T) {
	r := TableRange{StartPK: "p1", StartRK: "r1", EndPK: "p5", EndRK: "r5"}
	for _, tc := range []struct {
		rng    TableRange
		pk, rk string
		want   bool
	}{
		{r, "p1", "r1", true},
		{r, "p1", "r0", false},
		{r, "p0", "z", false},
		{r, "p3", "", true},
		{r, "p5", "r5", true},
		{r, "p5", "r6", false},
		{r, "p6", "a", false},
		{TableRange{StartPK: "p1", EndPK: "p5"}, "p5", "zzz", true},
		{TableRange{StartPK: "p1", EndPK: "p5"}, "p1", "", true},
		{TableRange{}, "anything", "at all", true},
	} {
		if got := tc.rng.Contains(tc.pk, tc.rk); got != tc.want {
			t.Errorf("%+v.Contains(%q, %q) = %v, want %v", tc.rng, tc.pk, tc.rk, got, tc.want)
		}
	}
	id := &Identity{Kind: ServiceSAS, SAS: &SAS{StartPK: "p1", EndPK: "p2"}}
	if err := id.AuthorizeEntity("p3", "r"); !azerr.Is(err, azerr.AuthorizationFailure) {
		t.Errorf("AuthorizeEntity outside the range: %v", err)
	}
	if err := id.AuthorizeEntity("p2", "r"); err != nil {
		t.Errorf("AuthorizeEntity inside the range: %v", err)
	}
	if err := (&Identity{Kind: SharedKey}).AuthorizeEntity("p9", ""); err != nil {
		t.Errorf("shared key caller: %v", err)
	}
}
