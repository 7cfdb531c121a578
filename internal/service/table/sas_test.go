package table_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

func sharedKeyClient(t *testing.T, e *env, table string) *aztables.Client {
	t.Helper()
	cred, err := aztables.NewSharedKeyCredential(lazulitest.Account, lazulitest.Key)
	if err != nil {
		t.Fatal(err)
	}
	c, err := aztables.NewClientWithSharedKey(e.in.TableURL+table, cred, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestTableSASKeyRange(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	e.table(t, "sastable")
	owner := sharedKeyClient(t, e, "sastable")
	for _, pk := range []string{"a", "b", "c", "d"} {
		for _, rk := range []string{"1", "2", "3"} {
			if _, err := owner.AddEntity(e.ctx, mustJSON(t, map[string]any{"PartitionKey": pk, "RowKey": rk}), nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	now := e.in.Clock.Now()
	sc := sasClient(t, e, "sastable", "raud", now, url.Values{"spk": {"b"}, "srk": {"2"}, "epk": {"c"}, "erk": {"2"}})
	got, _ := listAll(t, e, sc, nil)
	var keys []string
	for _, m := range got {
		keys = append(keys, m["PartitionKey"].(string)+m["RowKey"].(string))
	}
	if want := "[b2 b3 c1 c2]"; sprint(keys) != want {
		t.Fatalf("SAS query saw %v, want %s", keys, want)
	}
	if _, err := sc.GetEntity(e.ctx, "b", "3", nil); err != nil {
		t.Fatalf("in-range read: %v", err)
	}
	_, err := sc.GetEntity(e.ctx, "a", "1", nil)
	wantCode(t, err, 403, "AuthorizationFailure")
	_, err = sc.AddEntity(e.ctx, mustJSON(t, map[string]any{"PartitionKey": "d", "RowKey": "9"}), nil)
	wantCode(t, err, 403, "AuthorizationFailure")
	if _, err := sc.AddEntity(e.ctx, mustJSON(t, map[string]any{"PartitionKey": "c", "RowKey": "0"}), nil); err != nil {
		t.Fatalf("in-range insert: %v", err)
	}

	// Read-only SAS: writes are refused.
	ro := sasClient(t, e, "sastable", "r", now, nil)
	_, err = ro.AddEntity(e.ctx, mustJSON(t, map[string]any{"PartitionKey": "x", "RowKey": "y"}), nil)
	wantCode(t, err, 403, "AuthorizationPermissionMismatch")
	// An upsert needs add and update.
	au := sasClient(t, e, "sastable", "u", now, nil)
	_, err = au.UpsertEntity(e.ctx, mustJSON(t, map[string]any{"PartitionKey": "x", "RowKey": "y"}), nil)
	wantCode(t, err, 403, "AuthorizationPermissionMismatch")
}

func TestTableACLAndStoredPolicy(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	e.table(t, "acltable")
	owner := sharedKeyClient(t, e, "acltable")
	start := e.in.Clock.Now().Add(-time.Hour).UTC().Truncate(time.Second)
	expiry := start.Add(48 * time.Hour)
	_, err := owner.SetAccessPolicy(e.ctx, &aztables.SetAccessPolicyOptions{TableACL: []*aztables.SignedIdentifier{
		{ID: to.Ptr("readers"), AccessPolicy: &aztables.AccessPolicy{Start: &start, Expiry: &expiry, Permission: to.Ptr("r")}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	acl, err := owner.GetAccessPolicy(e.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(acl.SignedIdentifiers) != 1 || *acl.SignedIdentifiers[0].ID != "readers" ||
		!acl.SignedIdentifiers[0].AccessPolicy.Expiry.Equal(expiry) || *acl.SignedIdentifiers[0].AccessPolicy.Permission != "r" {
		t.Fatalf("ACL read back: %+v", acl.SignedIdentifiers)
	}
	// A SAS naming the stored policy reads but cannot write.
	pc := sasClient(t, e, "acltable", "", e.in.Clock.Now(), url.Values{"si": {"readers"}})
	if _, err := listAll2(e, pc); err != nil {
		t.Fatalf("read through stored policy: %v", err)
	}
	_, err = pc.AddEntity(e.ctx, mustJSON(t, map[string]any{"PartitionKey": "x", "RowKey": "y"}), nil)
	wantCode(t, err, 403, "AuthorizationPermissionMismatch")
	unknown := sasClient(t, e, "acltable", "", e.in.Clock.Now(), url.Values{"si": {"nobody"}})
	_, err = listAll2(e, unknown)
	wantCode(t, err, 403, "AuthenticationFailed")
	var six []*aztables.SignedIdentifier
	for i := 0; i < 6; i++ {
		six = append(six, &aztables.SignedIdentifier{ID: to.Ptr(string(rune('a' + i)))})
	}
	resp, body := e.raw(t, "PUT", "/acltable?comp=acl", http.Header{"Content-Type": {"application/xml"}},
		`<SignedIdentifiers>`+repeat(`<SignedIdentifier><Id>x</Id></SignedIdentifier>`, 6)+`</SignedIdentifiers>`)
	if resp.StatusCode != 400 {
		t.Fatalf("six identifiers: %d %s", resp.StatusCode, body)
	}
	for _, bad := range []*aztables.SignedIdentifier{
		{ID: to.Ptr(repeat("a", 65)), AccessPolicy: &aztables.AccessPolicy{Permission: to.Ptr("r")}},
		{ID: to.Ptr("order"), AccessPolicy: &aztables.AccessPolicy{Permission: to.Ptr("dr")}},
	} {
		_, err = owner.SetAccessPolicy(e.ctx, &aztables.SetAccessPolicyOptions{TableACL: []*aztables.SignedIdentifier{bad}})
		wantCode(t, err, 400, "InvalidXmlDocument")
	}
	_ = six
}

func repeat(s string, n int) string {
	out := ""
	for i := 0; i < n; i++ {
		out += s
	}
	return out
}

func sprint(v []string) string {
	out := "["
	for i, s := range v {
		if i > 0 {
			out += " "
		}
		out += s
	}
	return out + "]"
}

// sasClient signs a table service SAS by hand (version 2019-02-02 layout):
// aztables v1.4.0 signs spk/srk/epk/erk but leaves them out of the URL, so
// its key-range SAS cannot be verified by any server.
func sasClient(t *testing.T, e *env, table, perm string, now time.Time, ranges url.Values) *aztables.Client {
	t.Helper()
	st := now.Add(-time.Minute).UTC().Format("2006-01-02T15:04:05Z")
	se := now.Add(time.Hour).UTC().Format("2006-01-02T15:04:05Z")
	sv := "2019-02-02"
	si := ranges.Get("si")
	if si != "" {
		// The stored policy supplies the window and permissions.
		st, se, perm = "", "", ""
	}
	toSign := strings.Join([]string{perm, st, se, "/table/" + lazulitest.Account + "/" + strings.ToLower(table), si, "", "", sv,
		ranges.Get("spk"), ranges.Get("srk"), ranges.Get("epk"), ranges.Get("erk")}, "\n")
	mac := hmac.New(sha256.New, lazulitest.KeyBytes())
	mac.Write([]byte(toSign))
	q := url.Values{"sv": {sv}, "tn": {table}, "sig": {base64.StdEncoding.EncodeToString(mac.Sum(nil))}}
	for k, v := range map[string]string{"st": st, "se": se, "sp": perm} {
		if v != "" {
			q.Set(k, v)
		}
	}
	for k, v := range ranges {
		q[k] = v
	}
	c, err := aztables.NewClientWithNoCredential(e.in.TableURL+table+"?"+q.Encode(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func listAll2(e *env, c *aztables.Client) (int, error) {
	pg, err := c.NewListEntitiesPager(nil).NextPage(e.ctx)
	return len(pg.Entities), err
}
