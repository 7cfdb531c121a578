package queue_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"

	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
)

func TestPutGetDelete(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	q := e.queue("work")
	now := e.in.Clock.Now().Truncate(time.Second)
	sent := e.put(q, "hello <world> & \"friends\"", nil)
	if sent.MessageID == nil || sent.PopReceipt == nil || sent.InsertionTime.Before(now) ||
		!sent.ExpirationTime.Equal(sent.InsertionTime.Add(7*24*time.Hour)) || sent.TimeNextVisible.After(now.Add(time.Second)) {
		t.Fatalf("sent: %+v", sent)
	}
	got := e.get(q, 32, 30)
	if len(got) != 1 {
		t.Fatalf("got %d messages", len(got))
	}
	m := got[0]
	if *m.MessageID != *sent.MessageID || *m.MessageText != "hello <world> & \"friends\"" || *m.DequeueCount != 1 ||
		*m.PopReceipt == *sent.PopReceipt || !m.TimeNextVisible.Equal(e.in.Clock.Now().Add(30*time.Second).Truncate(time.Second)) {
		t.Fatalf("dequeued: %+v text %q", m, *m.MessageText)
	}
	// Hidden now: neither Get nor Peek returns it, but it still counts.
	if n := len(e.get(q, 1, 30)); n != 0 {
		t.Fatalf("invisible message delivered again (%d)", n)
	}
	if n := len(e.peek(q, 32)); n != 0 {
		t.Fatalf("peek saw %d invisible messages", n)
	}
	if n := e.count(q); n != 1 {
		t.Fatalf("count %d", n)
	}
	// The receipt of the put is stale after the delivery.
	_, err := q.DeleteMessage(e.ctx, *m.MessageID, *sent.PopReceipt, nil)
	wantError(t, err, http.StatusNotFound, "MessageNotFound")
	if _, err := q.DeleteMessage(e.ctx, *m.MessageID, *m.PopReceipt, nil); err != nil {
		t.Fatal(err)
	}
	_, err = q.DeleteMessage(e.ctx, *m.MessageID, *m.PopReceipt, nil)
	wantError(t, err, http.StatusNotFound, "MessageNotFound")
	if n := e.count(q); n != 0 {
		t.Fatalf("count after delete %d", n)
	}
}

func TestPutReceiptDeletes(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	q := e.queue("direct")
	sent := e.put(q, "x", &azqueue.EnqueueMessageOptions{VisibilityTimeout: ptr(int32(60))})
	if _, err := q.DeleteMessage(e.ctx, *sent.MessageID, *sent.PopReceipt, nil); err != nil {
		t.Fatalf("delete with the put receipt: %v", err)
	}
}

func TestPeek(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	q := e.queue("peek")
	for _, s := range []string{"one", "two", "three"} {
		e.put(q, s, nil)
	}
	for i := 0; i < 2; i++ {
		msgs := e.peek(q, 2)
		if len(msgs) != 2 || *msgs[0].MessageText != "one" || *msgs[1].MessageText != "two" || *msgs[0].DequeueCount != 0 {
			t.Fatalf("peek %d: %+v", i, msgs)
		}
	}
	resp, body := e.raw(http.MethodGet, "/peek/messages?peekonly=true", "", nil)
	if resp.StatusCode != 200 || strings.Contains(body, "PopReceipt") || strings.Contains(body, "TimeNextVisible") ||
		!strings.Contains(body, "<MessageText>one</MessageText>") {
		t.Fatalf("peek body: %d %s", resp.StatusCode, body)
	}
	got := e.get(q, 32, 30)
	if len(got) != 3 || *got[0].DequeueCount != 1 {
		t.Fatalf("peek changed the messages: %+v", got)
	}
}

// Delivery order is by visibility time, then insertion.
func TestDeliveryOrder(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	q := e.queue("order")
	e.put(q, "late", &azqueue.EnqueueMessageOptions{VisibilityTimeout: ptr(int32(10))})
	for _, s := range []string{"a", "b", "c"} {
		e.put(q, s, nil)
	}
	first := e.get(q, 1, 5) // "a", visible again in 5 s
	if *first[0].MessageText != "a" {
		t.Fatalf("first delivery %q", *first[0].MessageText)
	}
	e.advance(20 * time.Second)
	// Now visible: b and c (since put), a (since t+5), late (since t+10).
	var texts []string
	for _, m := range e.get(q, 32, 30) {
		texts = append(texts, *m.MessageText)
	}
	if strings.Join(texts, ",") != "b,c,a,late" {
		t.Fatalf("order %v", texts)
	}
}

func TestVisibilityTimeoutExpires(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	q := e.queue("vis")
	e.put(q, "job", nil)
	m := e.get(q, 1, 60)[0]
	e.advance(59 * time.Second)
	if n := len(e.get(q, 1, 60)); n != 0 {
		t.Fatal("delivered before its visibility timeout ended")
	}
	e.advance(time.Second)
	again := e.get(q, 1, 60)
	if len(again) != 1 || *again[0].DequeueCount != 2 || *again[0].PopReceipt == *m.PopReceipt {
		t.Fatalf("redelivery: %+v", again)
	}
	// The first receipt died with the redelivery.
	_, err := q.DeleteMessage(e.ctx, *m.MessageID, *m.PopReceipt, nil)
	wantError(t, err, http.StatusNotFound, "MessageNotFound")
	_, err = q.UpdateMessage(e.ctx, *m.MessageID, *m.PopReceipt, "new", nil)
	wantError(t, err, http.StatusNotFound, "MessageNotFound")
}

// A receipt stays valid after the visibility timeout ends, until the message
// is delivered again.
func TestReceiptOutlivesVisibility(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	q := e.queue("late-delete")
	e.put(q, "job", nil)
	m := e.get(q, 1, 10)[0]
	e.advance(time.Minute)
	if _, err := q.DeleteMessage(e.ctx, *m.MessageID, *m.PopReceipt, nil); err != nil {
		t.Fatalf("delete after the timeout, before redelivery: %v", err)
	}
}

func TestMessageTTL(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	q := e.queue("ttl")
	short := e.put(q, "short", &azqueue.EnqueueMessageOptions{TimeToLive: ptr(int32(60))})
	forever := e.put(q, "forever", &azqueue.EnqueueMessageOptions{TimeToLive: ptr(int32(-1))})
	if forever.ExpirationTime.Year() != 9999 {
		t.Fatalf("never-expiring message expires %v", forever.ExpirationTime)
	}
	e.put(q, "default", nil)
	e.advance(61 * time.Second)
	msgs := e.peek(q, 32)
	if len(msgs) != 2 || *msgs[0].MessageText != "forever" {
		t.Fatalf("after 61 s: %+v", msgs)
	}
	_, err := q.DeleteMessage(e.ctx, *short.MessageID, *short.PopReceipt, nil)
	wantError(t, err, http.StatusNotFound, "MessageNotFound")
	e.advance(7 * 24 * time.Hour)
	got := e.get(q, 32, 30)
	if len(got) != 1 || *got[0].MessageText != "forever" {
		t.Fatalf("after 7 days: %+v", got)
	}
	if n := e.count(q); n != 1 {
		t.Fatalf("count after expiry %d", n)
	}
}

func TestUpdateMessage(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	q := e.queue("update")
	e.put(q, "v1", nil)
	m := e.get(q, 1, 30)[0]
	resp, err := q.UpdateMessage(e.ctx, *m.MessageID, *m.PopReceipt, "v2", &azqueue.UpdateMessageOptions{VisibilityTimeout: ptr(int32(120))})
	if err != nil {
		t.Fatal(err)
	}
	if *resp.PopReceipt == *m.PopReceipt || !resp.TimeNextVisible.Equal(e.in.Clock.Now().Add(2*time.Minute).Truncate(time.Second)) {
		t.Fatalf("update response: %+v", resp)
	}
	_, err = q.DeleteMessage(e.ctx, *m.MessageID, *m.PopReceipt, nil)
	wantError(t, err, http.StatusNotFound, "MessageNotFound")
	e.advance(119 * time.Second)
	if n := len(e.get(q, 1, 30)); n != 0 {
		t.Fatal("updated message visible early")
	}
	e.advance(time.Second)
	got := e.get(q, 1, 30)
	if len(got) != 1 || *got[0].MessageText != "v2" || *got[0].DequeueCount != 2 {
		t.Fatalf("after update: %+v", got)
	}
	// Visibility 0 makes it visible at once; an empty body keeps the text.
	path := "/update/messages/" + *got[0].MessageID + "?popreceipt=" + url.QueryEscape(*got[0].PopReceipt) + "&visibilitytimeout=0"
	r, body := e.raw(http.MethodPut, path, "", nil)
	if r.StatusCode != http.StatusNoContent || r.Header.Get("x-ms-popreceipt") == "" || r.Header.Get("x-ms-time-next-visible") == "" {
		t.Fatalf("update without body: %d %v %s", r.StatusCode, r.Header, body)
	}
	if p := e.peek(q, 1); len(p) != 1 || *p[0].MessageText != "v2" {
		t.Fatalf("after visibility-only update: %+v", p)
	}
	_, err = q.UpdateMessage(e.ctx, *got[0].MessageID, r.Header.Get("x-ms-popreceipt"), "v3",
		&azqueue.UpdateMessageOptions{VisibilityTimeout: ptr(int32(7*24*3600 + 1))})
	wantError(t, err, http.StatusBadRequest, "OutOfRangeQueryParameterValue")
}

func TestClearMessages(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	q := e.queue("clear")
	for i := 0; i < 50; i++ {
		e.put(q, "m", nil)
	}
	if _, err := q.ClearMessages(e.ctx, nil); err != nil {
		t.Fatal(err)
	}
	if n := e.count(q); n != 0 {
		t.Fatalf("count after clear %d", n)
	}
	_, err := e.svc.NewQueueClient("nothere").ClearMessages(e.ctx, nil)
	wantError(t, err, http.StatusNotFound, "QueueNotFound")
}

func TestMessageErrors(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	q := e.queue("errors")
	sent := e.put(q, "x", nil)

	_, err := q.DeleteMessage(e.ctx, *sent.MessageID, "not-a-receipt", nil)
	re := wantError(t, err, http.StatusBadRequest, "InvalidQueryParameterValue")
	if body := errorBody(re); !strings.Contains(body, "<QueryParameterName>popreceipt</QueryParameterName>") ||
		!strings.Contains(body, "<Reason>invalid receipt format</Reason>") {
		t.Fatalf("malformed receipt body: %s", body)
	}
	// A well-formed receipt of another message is 404, as is an unknown id.
	other := e.put(q, "y", nil)
	_, err = q.DeleteMessage(e.ctx, *sent.MessageID, *other.PopReceipt, nil)
	wantError(t, err, http.StatusNotFound, "MessageNotFound")
	_, err = q.DeleteMessage(e.ctx, "not-a-guid", *sent.PopReceipt, nil)
	wantError(t, err, http.StatusNotFound, "MessageNotFound")
	_, err = e.svc.NewQueueClient("missing").DeleteMessage(e.ctx, *sent.MessageID, *sent.PopReceipt, nil)
	wantError(t, err, http.StatusNotFound, "QueueNotFound")

	_, err = q.DequeueMessages(e.ctx, &azqueue.DequeueMessagesOptions{NumberOfMessages: ptr(int32(33))})
	re = wantError(t, err, http.StatusBadRequest, "OutOfRangeQueryParameterValue")
	if body := errorBody(re); !strings.Contains(body, "<MinimumAllowed>1</MinimumAllowed>") || !strings.Contains(body, "<MaximumAllowed>32</MaximumAllowed>") {
		t.Fatalf("out of range body: %s", body)
	}
	_, err = q.DequeueMessages(e.ctx, &azqueue.DequeueMessagesOptions{VisibilityTimeout: ptr(int32(0))})
	wantError(t, err, http.StatusBadRequest, "OutOfRangeQueryParameterValue")
	_, err = q.EnqueueMessage(e.ctx, "x", &azqueue.EnqueueMessageOptions{VisibilityTimeout: ptr(int32(604801)), TimeToLive: ptr(int32(-1))})
	wantError(t, err, http.StatusBadRequest, "OutOfRangeQueryParameterValue")
	_, err = q.EnqueueMessage(e.ctx, "x", &azqueue.EnqueueMessageOptions{TimeToLive: ptr(int32(0))})
	wantError(t, err, http.StatusBadRequest, "OutOfRangeQueryParameterValue")
	_, err = q.EnqueueMessage(e.ctx, "x", &azqueue.EnqueueMessageOptions{VisibilityTimeout: ptr(int32(10)), TimeToLive: ptr(int32(10))})
	wantError(t, err, http.StatusBadRequest, "InvalidQueryParameterValue")

	if _, err := q.EnqueueMessage(e.ctx, strings.Repeat("a", 64<<10), nil); err != nil {
		t.Fatalf("64 KiB message: %v", err)
	}
	_, err = q.EnqueueMessage(e.ctx, strings.Repeat("a", 64<<10+1), nil)
	re = wantError(t, err, http.StatusRequestEntityTooLarge, "RequestBodyTooLarge")
	if !strings.Contains(errorBody(re), "<MaxLimit>65536</MaxLimit>") {
		t.Fatalf("too large body: %s", errorBody(re))
	}
	huge := "<QueueMessage><MessageText>" + strings.Repeat("&amp;", 30000) + "</MessageText></QueueMessage>"
	resp, body := e.raw(http.MethodPost, "/errors/messages", huge, nil)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(body, "<MaxLimit>131584</MaxLimit>") {
		t.Fatalf("oversized body: %d %s", resp.StatusCode, body)
	}
	resp, body = e.raw(http.MethodPost, "/errors/messages", "<QueueMessage>", nil)
	if resp.StatusCode != 400 || resp.Header.Get("x-ms-error-code") != "InvalidXmlDocument" {
		t.Fatalf("malformed body: %d %s", resp.StatusCode, body)
	}
	resp, body = e.raw(http.MethodPost, "/errors/messages", "<QueueMessage></QueueMessage>", nil)
	if resp.StatusCode != 400 || resp.Header.Get("x-ms-error-code") != "MissingRequiredXmlNode" {
		t.Fatalf("no MessageText: %d %s", resp.StatusCode, body)
	}
	resp, body = e.raw(http.MethodDelete, "/errors/messages/"+*sent.MessageID, "", nil)
	if resp.StatusCode != 400 || resp.Header.Get("x-ms-error-code") != "MissingRequiredQueryParameter" {
		t.Fatalf("no popreceipt: %d %s", resp.StatusCode, body)
	}
}

// errorBody is the XML body of an SDK error.
func errorBody(re interface{ Error() string }) string { return re.Error() }

// Message text comes back exactly as it was put: markup characters, line
// ends, tabs and non-ASCII included.
func TestMessageTextRoundTrip(t *testing.T) {
	e := start(t, lazulitest.Options{InMemory: true})
	q := e.queue("text")
	texts := []string{"", "plain", "line1\r\nline2\n\tend", "<tag attr=\"v\">&amp; ' ]]>", "snow ☃ and 😀", strings.Repeat("é", 1000)}
	for _, s := range texts {
		e.put(q, s, nil)
	}
	got := e.get(q, 32, 30)
	if len(got) != len(texts) {
		t.Fatalf("got %d messages", len(got))
	}
	for i, m := range got {
		if *m.MessageText != texts[i] {
			t.Errorf("message %d: got %q, want %q", i, *m.MessageText, texts[i])
		}
	}
	// Raw text with markup inside MessageText keeps only its character
	// data, as the service strips unescaped XML markup.
	resp, body := e.raw(http.MethodPost, "/text/messages", "<QueueMessage><MessageText>a<b>x</b>c</MessageText></QueueMessage>", nil)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("put with markup: %d %s", resp.StatusCode, body)
	}
	if p := e.peek(q, 1); len(p) != 1 || *p[0].MessageText != "ac" {
		t.Fatalf("markup message reads %+v", p)
	}
}
