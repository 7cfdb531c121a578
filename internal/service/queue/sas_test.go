package queue_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue/sas"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

func credential(t *testing.T) *azqueue.SharedKeyCredential {
	cred, err := azqueue.NewSharedKeyCredential(lazulitest.Account, lazulitest.Key)
	if err != nil {
		t.Fatal(err)
	}
	return cred
}

// queueSAS returns a client of queue name authorized by a service SAS.
func (e *env) queueSAS(name string, v sas.QueueSignatureValues) *azqueue.QueueClient {
	e.t.Helper()
	v.QueueName, v.Protocol = name, sas.ProtocolHTTPSandHTTP
	qp, err := v.SignWithSharedKey(credential(e.t))
	if err != nil {
		e.t.Fatal(err)
	}
	c, err := azqueue.NewQueueClientWithNoCredential(e.in.QueueURL+name+"?"+qp.Encode(), e.clientOptions())
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

// accountSAS returns a service client authorized by an account SAS.
func (e *env) accountSAS(perms sas.AccountPermissions, types sas.AccountResourceTypes) *azqueue.ServiceClient {
	e.t.Helper()
	qp, err := sas.AccountSignatureValues{Protocol: sas.ProtocolHTTPSandHTTP, ExpiryTime: e.in.Clock.Now().Add(time.Hour),
		Permissions: perms.String(), ResourceTypes: types.String()}.SignWithSharedKey(credential(e.t))
	if err != nil {
		e.t.Fatal(err)
	}
	c, err := azqueue.NewServiceClientWithNoCredential(e.in.QueueURL+"?"+qp.Encode(), e.clientOptions())
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

func TestServiceSASPermissions(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	e.queue("sas")
	expiry := e.in.Clock.Now().Add(time.Hour)
	add := e.queueSAS("sas", sas.QueueSignatureValues{ExpiryTime: expiry, Permissions: (&sas.QueuePermissions{Add: true}).String()})
	if _, err := add.EnqueueMessage(e.ctx, "via sas", nil); err != nil {
		t.Fatalf("add with a: %v", err)
	}
	_, err := add.DequeueMessage(e.ctx, nil)
	wantError(t, err, http.StatusForbidden, "AuthorizationPermissionMismatch")
	_, err = add.PeekMessage(e.ctx, nil)
	wantError(t, err, http.StatusForbidden, "AuthorizationPermissionMismatch")

	all := e.queueSAS("sas", sas.QueueSignatureValues{ExpiryTime: expiry,
		Permissions: (&sas.QueuePermissions{Read: true, Add: true, Update: true, Process: true}).String()})
	if n := len(e.peek(all, 1)); n != 1 {
		t.Fatalf("peek with r: %d", n)
	}
	props, err := all.GetProperties(e.ctx, nil)
	if err != nil || *props.ApproximateMessagesCount != 1 {
		t.Fatalf("metadata with r: %+v %v", props, err)
	}
	m := e.get(all, 1, 30)[0]
	upd, err := all.UpdateMessage(e.ctx, *m.MessageID, *m.PopReceipt, "changed", nil)
	if err != nil {
		t.Fatalf("update with u: %v", err)
	}
	if _, err := all.DeleteMessage(e.ctx, *m.MessageID, *upd.PopReceipt, nil); err != nil {
		t.Fatalf("delete with p: %v", err)
	}
	// A service SAS never creates, deletes or clears queues, nor sets metadata.
	_, err = all.ClearMessages(e.ctx, nil)
	wantError(t, err, http.StatusForbidden, "AuthorizationFailure")
	_, err = all.SetMetadata(e.ctx, nil)
	wantError(t, err, http.StatusForbidden, "AuthorizationFailure")
	_, err = e.queueSAS("other", sas.QueueSignatureValues{ExpiryTime: expiry, Permissions: "raup"}).Create(e.ctx, nil)
	wantError(t, err, http.StatusForbidden, "AuthorizationFailure")
	// A SAS of one queue does not reach another.
	e.queue("neighbour")
	wrong := e.queueSAS("sas", sas.QueueSignatureValues{ExpiryTime: expiry, Permissions: "raup"})
	neighbour, err := azqueue.NewQueueClientWithNoCredential(e.in.QueueURL+"neighbour?"+queryOf(t, wrong.URL()), e.clientOptions())
	if err != nil {
		t.Fatal(err)
	}
	_, err = neighbour.EnqueueMessage(e.ctx, "x", nil)
	wantError(t, err, http.StatusForbidden, "AuthenticationFailed")
	// Expired.
	e.advance(2 * time.Hour)
	_, err = all.PeekMessage(e.ctx, nil)
	wantError(t, err, http.StatusForbidden, "AuthenticationFailed")
}

func TestStoredAccessPolicy(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	q := e.queue("policy")
	expiry := e.in.Clock.Now().Add(time.Hour)
	_, err := q.SetAccessPolicy(e.ctx, &azqueue.SetAccessPolicyOptions{QueueACL: []*azqueue.SignedIdentifier{
		{ID: ptr("consumers"), AccessPolicy: &azqueue.AccessPolicy{Expiry: &expiry, Permission: ptr("p")}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	e.put(q, "job", nil)
	c := e.queueSAS("policy", sas.QueueSignatureValues{Identifier: "consumers"})
	if got := e.get(c, 1, 30); len(got) != 1 {
		t.Fatal("consumer SAS got nothing")
	}
	_, err = c.EnqueueMessage(e.ctx, "x", nil)
	wantError(t, err, http.StatusForbidden, "AuthorizationPermissionMismatch")
	// Removing the policy revokes every SAS that names it.
	if _, err := q.SetAccessPolicy(e.ctx, &azqueue.SetAccessPolicyOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = c.DequeueMessage(e.ctx, nil)
	wantError(t, err, http.StatusForbidden, "AuthenticationFailed")
}

func TestAccountSAS(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	full := e.accountSAS(sas.AccountPermissions{Read: true, Write: true, Delete: true, List: true, Add: true, Create: true, Update: true, Process: true},
		sas.AccountResourceTypes{Service: true, Container: true, Object: true})
	if _, err := full.CreateQueue(e.ctx, "viasas", nil); err != nil {
		t.Fatalf("create: %v", err)
	}
	q := full.NewQueueClient("viasas")
	if _, err := q.EnqueueMessage(e.ctx, "x", nil); err != nil {
		t.Fatalf("enqueue: %v", err)
	}
	page, err := full.NewListQueuesPager(nil).NextPage(e.ctx)
	if err != nil || len(page.Queues) != 1 {
		t.Fatalf("list: %+v %v", page, err)
	}
	if _, err := q.ClearMessages(e.ctx, nil); err != nil {
		t.Fatalf("clear: %v", err)
	}
	objects := e.accountSAS(sas.AccountPermissions{Read: true, Add: true, Process: true}, sas.AccountResourceTypes{Object: true})
	_, err = objects.CreateQueue(e.ctx, "denied", nil)
	wantError(t, err, http.StatusForbidden, "AuthorizationResourceTypeMismatch")
	_, err = objects.NewQueueClient("viasas").DeleteMessage(e.ctx, "00000000-0000-4000-8000-000000000000", "x", nil)
	wantError(t, err, http.StatusBadRequest, "InvalidQueryParameterValue")
	_, err = objects.NewQueueClient("viasas").UpdateMessage(e.ctx, "00000000-0000-4000-8000-000000000000", "x", "y", nil)
	wantError(t, err, http.StatusForbidden, "AuthorizationPermissionMismatch")
}

func TestAnonymousRejected(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	e.queue("private")
	anon, err := azqueue.NewQueueClientWithNoCredential(e.in.QueueURL+"private", e.clientOptions())
	if err != nil {
		t.Fatal(err)
	}
	_, err = anon.PeekMessage(e.ctx, nil)
	wantError(t, err, http.StatusUnauthorized, "NoAuthenticationInformation")
}

// queryOf returns the query string of a URL.
func queryOf(t *testing.T, u string) string {
	for i := 0; i < len(u); i++ {
		if u[i] == '?' {
			return u[i+1:]
		}
	}
	t.Fatalf("no query in %s", u)
	return ""
}

// TestQueueACLNeedsTheAccountKey: Get and Set Queue ACL are the account
// owner's, like the container, table and share ACLs. Before, an account
// SAS with r or w could read and replace a queue's stored access policies.
func TestQueueACLNeedsTheAccountKey(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	e.queue("owned")
	acct := e.accountSAS(sas.AccountPermissions{Read: true, Write: true}, sas.AccountResourceTypes{Container: true, Object: true})
	q := acct.NewQueueClient("owned")
	_, err := q.GetAccessPolicy(e.ctx, nil)
	wantError(t, err, http.StatusForbidden, "AuthorizationFailure")
	_, err = q.SetAccessPolicy(e.ctx, nil)
	wantError(t, err, http.StatusForbidden, "AuthorizationFailure")
	if _, err := e.svc.NewQueueClient("owned").GetAccessPolicy(e.ctx, nil); err != nil {
		t.Fatalf("the account key reads the ACL: %v", err)
	}
}
