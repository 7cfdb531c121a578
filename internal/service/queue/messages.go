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

// dequeue delivers up to n visible messages, hiding each for vis. Each
// store.Update scans the visible range and moves what it delivers in one
// serializable transaction, so concurrent consumers never receive the same
// message, and each is bounded: it deletes the expired messages it meets, at
// most expiredBound, and stops there. A backlog of expired messages must
// not hide a live one behind it (Azure REST "Get Messages"), so when an
// Update stops at that bound a read-only View skips the rest of the backlog
// (nextLive) and the next Update starts at the first unexpired message it
// found. The writer is thus never held for a backlog; the reaper is asked to
// clear it (reaper.go).
func (s *Service) dequeue(ctx context.Context, account, queue string, n int, vis time.Duration) ([]message, error) {
	now := s.clock.Now()
	nowNS := nanos(now)
	hideUntil := nanos(now.Add(vis))
	prefix := msgPrefix(account, queue)
	end := visibleBefore(prefix, nowNS)
	var out []message
	var backlog bool
	start := prefix
	for len(out) < n {
		got, sc, err := s.deliverFrom(ctx, account, queue, start, end, n-len(out), nowNS, hideUntil)
		out = append(out, got...)
		if err != nil {
			return out, err
		}
		if !sc.atBound {
			break
		}
		backlog = true
		if start, err = s.nextLive(ctx, after(sc.last), end, nowNS); err != nil {
			return out, err
		}
		if start == nil {
			break
		}
	}
	if backlog {
		s.reaper.request(account, queue)
	}
	return out, nil
}

// deliverFrom is one transaction of dequeue: it delivers up to n unexpired
// messages of [start, end), hiding each until hideUntil, and deletes the
// expired ones it meets, stopping after expiredBound of them.
func (s *Service) deliverFrom(ctx context.Context, account, queue string, start, end []byte, n int, now, hideUntil uint64) ([]message, visibleScan, error) {
	prefix := msgPrefix(account, queue)
	var out []message
	var sc visibleScan
	err := s.store.Update(headTurn(ctx, account, queue), func(tx store.Tx) error {
		out = out[:0]
		if err := requireQueue(tx, account, queue); err != nil {
			return err
		}
		var err error
		if sc, err = scanVisible(tx, start, end, now, n, expiredBound); err != nil {
			return err
		}
		for _, k := range sc.expired {
			if err := tx.Delete(k); err != nil {
				return err
			}
		}
		for i := range sc.found {
			m, err := deliver(tx, prefix, &sc.found[i], hideUntil)
			if err != nil {
				return err
			}
			out = append(out, m)
		}
		return nil
	})
	return out, sc, err
}

// nextLive returns the key of the first unexpired message of [start, end),
// or nil if there is none. It reads a snapshot, so skipping a backlog of
// expired messages holds no write lock.
func (s *Service) nextLive(ctx context.Context, start, end []byte, now uint64) ([]byte, error) {
	var key []byte
	err := s.store.View(ctx, func(tx store.Tx) error {
		sc, err := scanVisible(tx, start, end, now, 1, 0)
		key = nil
		if err == nil && len(sc.found) == 1 {
			key = sc.found[0].key
		}
		return err
	})
	return key, err
}

// after is the first key after k.
func after(k []byte) []byte { return append(bytes.Clone(k), 0) }

// rawMessage is a record met by a scan, copied out of the transaction.
type rawMessage struct{ key, value []byte }

// expiredBound is the most expired messages one request deletes, and the
// most one reaper transaction deletes.
const expiredBound = 256

// visibleScan is what a scan of a queue's visible range met.
type visibleScan struct {
	found   []rawMessage // unexpired messages, in delivery order
	expired [][]byte     // keys of the first expired messages met, at most expiredBound
	atBound bool         // the scan stopped at its bound of expired messages
	last    []byte       // the last key examined, nil if none
}

// scanVisible scans [start, end) of a queue's visible range, in delivery
// order, for up to n unexpired messages. Expired messages are never
// returned; the keys of the first expiredBound met are kept for deletion.
// With skipBound > 0 the scan also stops after skipBound expired messages;
// with 0 it goes past any number of them, to the first n unexpired ones or
// the end of the range.
func scanVisible(tx store.Tx, start, end []byte, now uint64, n, skipBound int) (visibleScan, error) {
	var sc visibleScan
	skipped := 0
	err := tx.Scan(start, end, store.ScanOptions{}, func(k, v []byte) bool {
		sc.last = append(sc.last[:0], k...)
		if !valueExpired(v, now) {
			sc.found = append(sc.found, rawMessage{bytes.Clone(k), bytes.Clone(v)})
			return len(sc.found) < n
		}
		skipped++
		if len(sc.expired) < expiredBound {
			sc.expired = append(sc.expired, bytes.Clone(k))
		}
		sc.atBound = skipped == skipBound
		return !sc.atBound
	})
	return sc, err
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

// peek returns up to n visible messages without changing them, from one
// read-only snapshot that goes past any number of expired messages (Azure
// REST "Peek Messages": a visible, unexpired message is returned whatever
// lies ahead of it). The first expiredBound expired messages it met are
// purged afterwards, so that a queue that is only ever peeked does not keep
// scanning them, and the reaper is asked to clear a longer backlog.
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
		sc, err := scanVisible(tx, prefix, visibleBefore(prefix, nowNS), nowNS, n, 0)
		expired = sc.expired
		for i := 0; err == nil && i < len(sc.found); i++ {
			var m message
			if err = decodeKey(sc.found[i].key, len(prefix), &m); err == nil {
				err = decodeValue(sc.found[i].value, &m)
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
		err := s.store.Update(headTurn(ctx, account, queue), func(tx store.Tx) error {
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
