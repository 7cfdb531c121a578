package dfs_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"
)

// principalToken is the azcore credential of a principal's token.
type principalToken struct {
	t   *testing.T
	oid string
}

func (p principalToken) GetToken(context.Context, policy.TokenRequestOptions) (azcore.AccessToken, error) {
	return azcore.AccessToken{Token: tokenFor(p.t, p.oid), ExpiresOn: time.Now().Add(time.Hour)}, nil
}

// delegationSAS is a read SAS for acl/d/f signed with a user delegation
// key of the role holder, naming oid as suoid (checked) or saoid (not).
func (e *aclEnv) delegationSAS(perm string, set func(*sas.BlobSignatureValues)) string {
	e.t.Helper()
	svc, err := service.NewClient(e.productionURL(), principalToken{e.t, ownerOID}, &service.ClientOptions{ClientOptions: azcore.ClientOptions{
		Transport: e.client, Retry: policy.RetryOptions{MaxRetries: -1}}})
	if err != nil {
		e.t.Fatal(err)
	}
	now := time.Now().UTC()
	udc, err := svc.GetUserDelegationCredential(context.Background(), service.KeyInfo{
		Start: to.Ptr(now.Add(-time.Minute).Format(sas.TimeFormat)), Expiry: to.Ptr(now.Add(time.Hour).Format(sas.TimeFormat))}, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	v := sas.BlobSignatureValues{Protocol: sas.ProtocolHTTPS, ExpiryTime: now.Add(time.Hour), Permissions: perm,
		ContainerName: "acl", BlobName: "d/f"}
	set(&v)
	qp, err := v.SignWithUserDelegation(udc)
	if err != nil {
		e.t.Fatal(err)
	}
	return qp.Encode()
}

// getWithSAS reads acl/d/f with a SAS and returns status and error code.
func (e *aclEnv) getWithSAS(query string) (int, string) {
	e.t.Helper()
	resp, err := e.client.Get(e.productionURL() + "acl/d/f?" + query)
	if err != nil {
		e.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("x-ms-error-code")
}

// A user delegation SAS naming suoid is checked against the ACLs as that
// principal, and its own permissions still apply; one naming saoid is
// the key owner's, not checked ("Create a user delegation SAS").
func TestACLDelegationSAS(t *testing.T) {
	e := startACL(t, true, ownerOID)
	e.tree()
	unauthorized := e.delegationSAS("r", func(v *sas.BlobSignatureValues) { v.UnauthorizedObjectID = userOID })
	if got, code := e.getWithSAS(unauthorized); got != http.StatusForbidden || code != "AuthorizationPermissionMismatch" {
		t.Fatalf("suoid before the ACLs grant it: %d %s", got, code)
	}
	preauthorized := e.delegationSAS("r", func(v *sas.BlobSignatureValues) { v.AuthorizedObjectID = userOID })
	if got, code := e.getWithSAS(preauthorized); got != http.StatusOK {
		t.Fatalf("saoid: %d %s", got, code)
	}
	for path, acl := range map[string]string{
		"":    "user::rwx,user:" + userOID + ":--x,group::r-x,mask::r-x,other::---",
		"d":   "user::rwx,user:" + userOID + ":--x,group::r-x,mask::r-x,other::---",
		"d/f": "user::rw-,user:" + userOID + ":r--,group::r--,mask::r--,other::---",
	} {
		e.putACL(path, acl)
	}
	if got, code := e.getWithSAS(unauthorized); got != http.StatusOK {
		t.Fatalf("suoid the ACLs grant: %d %s", got, code)
	}
	writeOnly := e.delegationSAS("w", func(v *sas.BlobSignatureValues) { v.UnauthorizedObjectID = userOID })
	if got, code := e.getWithSAS(writeOnly); got != http.StatusForbidden || code != "AuthorizationPermissionMismatch" {
		t.Fatalf("a write SAS reading: %d %s", got, code)
	}
}
