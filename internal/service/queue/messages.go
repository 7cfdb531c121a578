package queue

import (
	"bytes"
	"context"
	"math/rand/v2"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/guid"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// clearBatch is how many messages one transaction of Clear Messages (and of
// Delete Queue) removes.
const clearBatch = 4096

// lastSeq is the last insertion sequence issued by this process.
var lastSeq atomic.Uint64

// nextSeq issues an insertion sequence: the current time in ns, or one more
// than the last issued if the clock has not moved (a fake clock, a coarse
// clock, a step back). Messages put later therefore sort after earlier ones
// of the same visibility. Across processes sharing a store ties are broken
// by the message id in the key, so no two messages ever share a key.
func nextSeq(now time.Time) uint64 {
	want := nanos(now)
	for {
		last := lastSeq.Load()
		next := max(want, last+1)
		if lastSeq.CompareAndSwap(last, next) {
			return next
		}
	}
}

// putMessage is Put Message: 201 with the new message's id, times and pop
// receipt.
func (s *Service) putMessage(w http.ResponseWriter, r *http.Request, t target) error {
	info := request.Of(r)
	p, err := parsePutParams(r.URL.Query(), info.Version)
	if err != nil {
		return err
	}
	body, err := readBody(r, maxMessageBody)
	if err != nil {
		return err
	}
	text, ok, err := parseMessageBody(body)
	if err != nil {
		return err
	}
	if !ok {
		return azerr.New(azerr.MissingRequiredXmlNode).With("XmlNodeName", "MessageText")
	}
	if err := checkMessageText(text); err != nil {
		return err
	}
	m, err := s.enqueue(r.Context(), info.Account, t.queue, text, p)
	if err != nil {
		return err
	}
	msgs := [1]message{m}
	return writeXML(w, r, http.StatusCreated, appendMessageList(make([]byte, 0, 512), sentList, msgs[:]))
}

// enqueue stores a new message in one transaction and returns it.
func (s *Service) enqueue(ctx context.Context, account, queue string, text []byte, p putParams) (message, error) {
	now := s.clock.Now()
	m := message{
		Seq:       nextSeq(now),
		ID:        guid.NewRaw(),
		Inserted:  nanos(now),
		Expires:   neverExpires,
		VisibleAt: nanos(now.Add(p.Visibility)),
		Nonce:     rand.Uint64(),
		Text:      text,
	}
	if p.TTL >= 0 {
		m.Expires = nanos(now.Add(p.TTL))
	}
	prefix := msgPrefix(account, queue)
	err := s.store.Update(ctx, func(tx store.Tx) error {
		if err := requireQueue(tx, account, queue); err != nil {
			return err
		}
		return tx.Put(msgKey(prefix, m.VisibleAt, m.Seq, &m.ID), encodeValue(&m))
	})
	return m, err
}

// getMessages is Get Messages, or Peek Messages with peekonly=true.
func (s *Service) getMessages(w http.ResponseWriter, r *http.Request, t target) error {
	info := request.Of(r)
	p, err := parseGetParams(r.URL.Query(), info.Version)
	if err != nil {
		return err
	}
	var msgs []message
	kind := dequeuedList
	if p.Peek {
		kind = peekedList
		msgs, err = s.peek(r.Context(), info.Account, t.queue, p.Count)
	} else {
		msgs, err = s.dequeue(r.Context(), info.Account, t.queue, p.Count, p.Visibility)
	}
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-cache")
	return writeXML(w, r, http.StatusOK, appendMessageList(make([]byte, 0, 1024), kind, msgs))
}

// dequeue delivers up to n visible messages, hiding each for vis. The scan of
// the visible range and the moves happen in one serializable transaction, so
// concurrent consumers never receive the same message. Expired messages met
// on the way are deleted and not counted, at most expiredBound of them: a
// queue whose head holds more asks the reaper to clear them (reaper.go) and
// this call answers with what it found before the bound, so that no request
// does work proportional to a backlog of expired messages.
func (s *Service) dequeue(ctx context.Context, account, queue string, n int, vis time.Duration) ([]message, error) {
	now := s.clock.Now()
	nowNS := nanos(now)
	hideUntil := nanos(now.Add(vis))
	prefix := msgPrefix(account, queue)
	var out []message
	var backlog bool
	err := s.store.Update(ctx, func(tx store.Tx) error {
		out = out[:0]
		if err := requireQueue(tx, account, queue); err != nil {
			return err
		}
		found, expired, err := scanVisible(tx, prefix, nowNS, n)
		if err != nil {
			return err
		}
		backlog = len(expired) >= expiredBound
		for _, k := range expired {
			if err := tx.Delete(k); err != nil {
				return err
			}
		}
		for i := range found {
			m, err := deliver(tx, prefix, &found[i], hideUntil)
			if err != nil {
				return err
			}
			out = append(out, m)
		}
		return nil
	})
	if err == nil && backlog {
		s.reaper.request(account, queue)
	}
	return out, err
}

// rawMessage is a record met by a scan, copied out of the transaction.
type rawMessage struct{ key, value []byte }

// expiredBound is the most expired messages one request deletes, and the
// most one reaper transaction deletes.
const expiredBound = 256

// scanVisible collects up to n unexpired messages visible at now, in
// delivery order, and the keys of the expired ones met before them: at
// most expiredBound, where the scan stops.
func scanVisible(tx store.Tx, prefix []byte, now uint64, n int) ([]rawMessage, [][]byte, error) {
	var found []rawMessage
	var expired [][]byte
	err := tx.Scan(prefix, visibleBefore(prefix, now), store.ScanOptions{}, func(k, v []byte) bool {
		if valueExpired(v, now) {
			expired = append(expired, bytes.Clone(k))
			return len(expired) < expiredBound
		}
		found = append(found, rawMessage{bytes.Clone(k), bytes.Clone(v)})
		return len(found) < n
	})
	return found, expired, err
}

// deliver hides one message until hideUntil: it moves the record to its new
// visibility position with a new nonce (so a new pop receipt) and one more
// dequeue.
func deliver(tx store.Tx, prefix []byte, raw *rawMessage, hideUntil uint64) (message, error) {
	var m message
	if err := decodeKey(raw.key, len(prefix), &m); err != nil {
		return m, err
	}
	if err := decodeValue(raw.value, &m); err != nil {
		return m, err
	}
	m.VisibleAt = hideUntil
	m.Nonce = rand.Uint64()
	m.Dequeues++
	if err := tx.Delete(raw.key); err != nil {
		return m, err
	}
	return m, tx.Put(msgKey(prefix, m.VisibleAt, m.Seq, &m.ID), encodeValue(&m))
}

// peek returns up to n visible messages without changing them. It reads a
// snapshot; if it met expired messages it purges them afterwards (at most
// expiredBound, as dequeue), so that a queue that is only ever peeked does
// not keep scanning them.
func (s *Service) peek(ctx context.Context, account, queue string, n int) ([]message, error) {
	nowNS := nanos(s.clock.Now())
	prefix := msgPrefix(account, queue)
	var out []message
	var expired [][]byte
	err := s.store.View(ctx, func(tx store.Tx) error {
		out = out[:0]
		if err := requireQueue(tx, account, queue); err != nil {
			return err
		}
		found, exp, err := scanVisible(tx, prefix, nowNS, n)
		expired = exp
		for i := 0; err == nil && i < len(found); i++ {
			var m message
			if err = decodeKey(found[i].key, len(prefix), &m); err == nil {
				err = decodeValue(found[i].value, &m)
			}
			out = append(out, m)
		}
		return err
	})
	if err != nil || len(expired) == 0 {
		return out, err
	}
	if len(expired) >= expiredBound {
		s.reaper.request(account, queue)
	}
	return out, s.purge(ctx, expired, nowNS)
}

// purge deletes the given message records if they are still there and still
// expired at now (a concurrent Update may have moved or replaced them).
func (s *Service) purge(ctx context.Context, keys [][]byte, now uint64) error {
	return s.store.Update(ctx, func(tx store.Tx) error {
		for _, k := range keys {
			v, err := tx.Get(k)
			if err != nil || !valueExpired(v, now) {
				continue
			}
			if err := tx.Delete(k); err != nil {
				return err
			}
		}
		return nil
	})
}

// clearMessages is Clear Messages: every message of the queue is deleted.
func (s *Service) clearMessages(w http.ResponseWriter, r *http.Request, t target) error {
	account := request.Of(r).Account
	err := s.store.View(r.Context(), func(tx store.Tx) error { return requireQueue(tx, account, t.queue) })
	if err != nil {
		return err
	}
	if err := s.clearBatches(r.Context(), account, t.queue); err != nil {
		return err
	}
	return writeEmpty(w, http.StatusNoContent)
}

// clearBatches deletes a queue's messages a batch per transaction until a
// batch finds fewer than a full batch.
func (s *Service) clearBatches(ctx context.Context, account, queue string) error {
	prefix := msgPrefix(account, queue)
	for {
		var n int
		err := s.store.Update(ctx, func(tx store.Tx) error {
			var err error
			n, err = deleteMessages(tx, prefix, clearBatch)
			return err
		})
		if err != nil || n < clearBatch {
			return err
		}
	}
}

// deleteMessages deletes up to limit messages under prefix (0: all) and
// returns how many it deleted.
func deleteMessages(tx store.Tx, prefix []byte, limit int) (int, error) {
	var keys [][]byte
	err := tx.Scan(prefix, store.PrefixEnd(prefix), store.ScanOptions{Limit: limit}, func(k, _ []byte) bool {
		keys = append(keys, bytes.Clone(k))
		return true
	})
	if err != nil {
		return 0, err
	}
	for _, k := range keys {
		if err := tx.Delete(k); err != nil {
			return 0, err
		}
	}
	return len(keys), nil
}
