package table_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

// accountSASClient signs an account SAS for the Table service by hand (the
// SDK's helper forces spr=https, which a plain-HTTP test server refuses).
func accountSASClient(t *testing.T, e *env, perm, resourceTypes string) *aztables.ServiceClient {
	t.Helper()
	now := e.in.Clock.Now()
	st := now.Add(-time.Minute).UTC().Format("2006-01-02T15:04:05Z")
	se := now.Add(time.Hour).UTC().Format("2006-01-02T15:04:05Z")
	sv := "2019-02-02"
	toSign := strings.Join([]string{lazulitest.Account, perm, "t", resourceTypes, st, se, "", "", sv}, "\n") + "\n"
	mac := hmac.New(sha256.New, lazulitest.KeyBytes())
	mac.Write([]byte(toSign))
	q := url.Values{"sv": {sv}, "ss": {"t"}, "srt": {resourceTypes}, "sp": {perm}, "st": {st}, "se": {se},
		"sig": {base64.StdEncoding.EncodeToString(mac.Sum(nil))}}
	c, err := aztables.NewServiceClientWithNoCredential(e.in.TableURL+"?"+q.Encode(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestAccountSAS(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	full := accountSASClient(t, e, "rwdlacu", "sco")
	if _, err := full.CreateTable(e.ctx, "viasas", nil); err != nil {
		t.Fatalf("create table with account SAS: %v", err)
	}
	tc := full.NewClient("viasas")
	if _, err := tc.AddEntity(e.ctx, mustJSON(t, map[string]any{"PartitionKey": "p", "RowKey": "r"}), nil); err != nil {
		t.Fatalf("insert with account SAS: %v", err)
	}
	if n, err := listAll2(e, tc); err != nil || n != 1 {
		t.Fatalf("query with account SAS: %d %v", n, err)
	}
	if _, err := full.NewListTablesPager(nil).NextPage(e.ctx); err != nil {
		t.Fatalf("list tables with account SAS: %v", err)
	}

	objectsOnly := accountSASClient(t, e, "rwdlacu", "o")
	_, err := objectsOnly.CreateTable(e.ctx, "nope", nil)
	wantCode(t, err, 403, "AuthorizationResourceTypeMismatch")

	readOnly := accountSASClient(t, e, "r", "sco")
	_, err = readOnly.NewClient("viasas").AddEntity(e.ctx, mustJSON(t, map[string]any{"PartitionKey": "p", "RowKey": "s"}), nil)
	wantCode(t, err, 403, "AuthorizationPermissionMismatch")
	if n, err := listAll2(e, readOnly.NewClient("viasas")); err != nil || n != 1 {
		t.Fatalf("read with read-only account SAS: %d %v", n, err)
	}
}

// TestTableACLNeedsTheAccountKey: Get and Set Table ACL are the account
// owner's; an account SAS holding r and w is refused.
func TestTableACLNeedsTheAccountKey(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	owner, err := aztables.NewServiceClientFromConnectionString(e.in.ConnectionString, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := owner.CreateTable(e.ctx, "ownedacl", nil); err != nil {
		t.Fatal(err)
	}
	tc := accountSASClient(t, e, "rw", "sco").NewClient("ownedacl")
	_, err = tc.GetAccessPolicy(e.ctx, nil)
	wantCode(t, err, 403, "AuthorizationFailure")
	_, err = tc.SetAccessPolicy(e.ctx, nil)
	wantCode(t, err, 403, "AuthorizationFailure")
}
