package queue

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// messageRef is what Delete and Update Message address: a message id from
// the path and a pop receipt from the query.
type messageRef struct {
	account, queue string
	id             [idLen]byte
	idOK           bool
	receipt        receipt
}

// parseRef reads the message id and the popreceipt parameter. A missing or
// malformed receipt is 400; an id this service could not have issued is
// remembered and answered 404 MessageNotFound once the queue is known to
// exist, as for any other message that is not there.
func parseRef(r *http.Request, t target) (messageRef, error) {
	ref := messageRef{account: request.Of(r).Account, queue: t.queue}
	vs, ok := r.URL.Query()["popreceipt"]
	if !ok || len(vs) == 0 {
		return ref, azerr.New(azerr.MissingRequiredQueryParameter).With("QueryParameterName", "popreceipt")
	}
	var err error
	if ref.receipt, err = parseReceipt(vs[0]); err != nil {
		return ref, err
	}
	ref.id, ref.idOK = parseID(t.message)
	return ref, nil
}

// locate finds the message ref names inside tx: the queue must exist, and
// the receipt must be the message's current one and the message unexpired;
// anything else is 404 MessageNotFound. It returns the message and its key.
func locate(tx store.Tx, ref *messageRef, now uint64) (message, []byte, error) {
	var m message
	if err := requireQueue(tx, ref.account, ref.queue); err != nil {
		return m, nil, err
	}
	notFound := azerr.New(azerr.MessageNotFound)
	if !ref.idOK {
		return m, nil, notFound
	}
	prefix := msgPrefix(ref.account, ref.queue)
	key := msgKey(prefix, ref.receipt.VisibleAt, ref.receipt.Seq, &ref.id)
	v, err := tx.Get(key)
	if errors.Is(err, store.ErrNotFound) {
		return m, nil, notFound
	}
	if err != nil {
		return m, nil, err
	}
	if err := decodeValue(v, &m); err != nil {
		return m, nil, err
	}
	if m.Nonce != ref.receipt.Nonce || m.expired(now) {
		return m, nil, notFound
	}
	m.VisibleAt, m.Seq, m.ID = ref.receipt.VisibleAt, ref.receipt.Seq, ref.id
	return m, key, nil
}

// deleteMessage is Delete Message: 204 when the receipt is the message's
// latest, 404 MessageNotFound otherwise.
func (s *Service) deleteMessage(w http.ResponseWriter, r *http.Request, t target) error {
	ref, err := parseRef(r, t)
	if err != nil {
		return err
	}
	if err := s.remove(r.Context(), &ref); err != nil {
		return err
	}
	return writeEmpty(w, http.StatusNoContent)
}

// remove deletes the message ref names, in one transaction.
func (s *Service) remove(ctx context.Context, ref *messageRef) error {
	now := nanos(s.clock.Now())
	return s.store.Update(ctx, func(tx store.Tx) error {
		_, key, err := locate(tx, ref, now)
		if err != nil {
			return err
		}
		return tx.Delete(key)
	})
}

// update is what Update Message changes.
type update struct {
	visibility time.Duration
	text       []byte
	hasText    bool // false: keep the stored text
}

// updateMessage is Update Message: a new visibility timeout and optionally
// new text; 204 with the new pop receipt and next-visible time.
func (s *Service) updateMessage(w http.ResponseWriter, r *http.Request, t target) error {
	ref, err := parseRef(r, t)
	if err != nil {
		return err
	}
	var u update
	if u.visibility, err = parseUpdateVisibility(r.URL.Query()); err != nil {
		return err
	}
	if u.text, u.hasText, err = readUpdateBody(r); err != nil {
		return err
	}
	m, err := s.change(r.Context(), &ref, u)
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("X-Ms-Popreceipt", receiptOf(&m).String())
	h.Set("X-Ms-Time-Next-Visible", string(appendTime(nil, m.VisibleAt)))
	return writeEmpty(w, http.StatusNoContent)
}

// readUpdateBody reads the optional QueueMessage body of Update Message.
func readUpdateBody(r *http.Request) ([]byte, bool, error) {
	body, err := readBody(r, maxMessageBody)
	if err != nil || len(bytes.TrimSpace(body)) == 0 {
		return nil, false, err
	}
	text, ok, err := parseMessageBody(body)
	if err != nil || !ok {
		return nil, false, err
	}
	return text, true, checkMessageText(text)
}

// change applies an update to the message ref names and returns it as
// stored: moved to its new visibility with a new nonce, dequeue count kept.
func (s *Service) change(ctx context.Context, ref *messageRef, u update) (message, error) {
	now := s.clock.Now()
	nowNS := nanos(now)
	visibleAt := nanos(now.Add(u.visibility))
	var out message
	err := s.store.Update(ctx, func(tx store.Tx) error {
		m, key, err := locate(tx, ref, nowNS)
		if err != nil {
			return err
		}
		if visibleAt > m.Expires {
			return azerr.InvalidQuery("visibilitytimeout", itoa(int(u.visibility/time.Second)),
				"The visibility timeout cannot be later than the message expiry time.")
		}
		m.VisibleAt, m.Nonce = visibleAt, rand.Uint64()
		if u.hasText {
			m.Text = u.text
		}
		if err := tx.Delete(key); err != nil {
			return err
		}
		prefix := msgPrefix(ref.account, ref.queue)
		out = m
		out.Text = nil // it may alias the store's buffer
		return tx.Put(msgKey(prefix, m.VisibleAt, m.Seq, &m.ID), encodeValue(&m))
	})
	return out, err
}
