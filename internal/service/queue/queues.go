package queue

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/accesspolicy"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/metadata"
)

// loadQueue reads a queue record, or 404 QueueNotFound.
func loadQueue(tx store.Tx, account, name string) (queueRecord, error) {
	v, err := tx.Get(queueKey(account, name))
	if errors.Is(err, store.ErrNotFound) {
		return queueRecord{}, azerr.New(azerr.QueueNotFound)
	}
	if err != nil {
		return queueRecord{}, err
	}
	return decodeQueue(v)
}

// requireQueue checks that a queue exists without decoding it.
func requireQueue(tx store.Tx, account, name string) error {
	_, err := tx.Get(queueKey(account, name))
	if errors.Is(err, store.ErrNotFound) {
		return azerr.New(azerr.QueueNotFound)
	}
	return err
}

// createQueue is Create Queue: 201 when created, 204 when the queue exists
// with identical metadata, 409 QueueAlreadyExists when it exists with other
// metadata.
func (s *Service) createQueue(w http.ResponseWriter, r *http.Request, t target) error {
	md, err := metadata.Parse(r.Header)
	if err != nil {
		return err
	}
	account := request.Of(r).Account
	status := http.StatusCreated
	err = s.store.Update(r.Context(), func(tx store.Tx) error {
		status = http.StatusCreated
		key := queueKey(account, t.queue)
		v, err := tx.Get(key)
		switch {
		case errors.Is(err, store.ErrNotFound):
			return tx.Put(key, queueRecord{Meta: md}.encode())
		case err != nil:
			return err
		}
		existing, err := decodeQueue(v)
		if err != nil {
			return err
		}
		if !existing.Meta.Equal(md) {
			return azerr.New(azerr.QueueAlreadyExists)
		}
		status = http.StatusNoContent
		return nil
	})
	if err != nil {
		return err
	}
	return writeEmpty(w, status)
}

// deleteQueue is Delete Queue. Its messages are removed in batches first, so
// that a queue of millions of messages does not become one huge
// transaction; the last transaction removes the queue record and whatever
// messages remain, atomically.
func (s *Service) deleteQueue(w http.ResponseWriter, r *http.Request, t target) error {
	account := request.Of(r).Account
	if err := s.clearBatches(r.Context(), account, t.queue); err != nil {
		return err
	}
	err := s.store.Update(r.Context(), func(tx store.Tx) error {
		if err := requireQueue(tx, account, t.queue); err != nil {
			return err
		}
		if _, err := deleteMessages(tx, msgPrefix(account, t.queue), 0); err != nil {
			return err
		}
		return tx.Delete(queueKey(account, t.queue))
	})
	if err != nil {
		return err
	}
	return writeEmpty(w, http.StatusNoContent)
}

// getMetadata is Get Queue Metadata (GET or HEAD): the metadata headers and
// the approximate message count.
func (s *Service) getMetadata(w http.ResponseWriter, r *http.Request, t target) error {
	account := request.Of(r).Account
	now := nanos(s.clock.Now())
	var q queueRecord
	var count int
	err := s.store.View(r.Context(), func(tx store.Tx) error {
		var err error
		if q, err = loadQueue(tx, account, t.queue); err != nil {
			return err
		}
		count, err = countMessages(tx, msgPrefix(account, t.queue), now)
		return err
	})
	if err != nil {
		return err
	}
	h := w.Header()
	q.Meta.WriteHeaders(h)
	h.Set("X-Ms-Approximate-Messages-Count", strconv.Itoa(count))
	return writeEmpty(w, http.StatusOK)
}

// countMessages counts the unexpired messages of a queue. It is the one
// queue operation whose cost grows with the queue, which the service allows
// by calling the count approximate.
func countMessages(tx store.Tx, prefix []byte, now uint64) (int, error) {
	n := 0
	err := tx.Scan(prefix, store.PrefixEnd(prefix), store.ScanOptions{}, func(_, v []byte) bool {
		if !valueExpired(v, now) {
			n++
		}
		return true
	})
	return n, err
}

// setMetadata is Set Queue Metadata: the request's x-ms-meta-* headers
// replace the queue's metadata.
func (s *Service) setMetadata(w http.ResponseWriter, r *http.Request, t target) error {
	md, err := metadata.Parse(r.Header)
	if err != nil {
		return err
	}
	account := request.Of(r).Account
	err = s.updateQueue(r, account, t.queue, func(q *queueRecord) { q.Meta = md })
	if err != nil {
		return err
	}
	return writeEmpty(w, http.StatusNoContent)
}

// updateQueue applies change to a queue record in one transaction.
func (s *Service) updateQueue(r *http.Request, account, name string, change func(*queueRecord)) error {
	return s.store.Update(r.Context(), func(tx store.Tx) error {
		q, err := loadQueue(tx, account, name)
		if err != nil {
			return err
		}
		change(&q)
		return tx.Put(queueKey(account, name), q.encode())
	})
}

// getACL is Get Queue ACL (GET or HEAD).
func (s *Service) getACL(w http.ResponseWriter, r *http.Request, t target) error {
	account := request.Of(r).Account
	var q queueRecord
	err := s.store.View(r.Context(), func(tx store.Tx) error {
		var err error
		q, err = loadQueue(tx, account, t.queue)
		return err
	})
	if err != nil {
		return err
	}
	return writeXML(w, r, http.StatusOK, appendACL(nil, q.ACL))
}

// setACL is Set Queue ACL: the body's signed identifiers (at most five)
// replace the queue's.
func (s *Service) setACL(w http.ResponseWriter, r *http.Request, t target) error {
	policies, err := accesspolicy.Read(r, accesspolicy.QueueLetters)
	if err != nil {
		return err
	}
	account := request.Of(r).Account
	if err := s.updateQueue(r, account, t.queue, func(q *queueRecord) { q.ACL = policies }); err != nil {
		return err
	}
	return writeEmpty(w, http.StatusNoContent)
}

// lookupPolicy finds a stored access policy of a queue for SAS
// authorization; a missing queue has none.
func (s *Service) lookupPolicy(r *http.Request, account, name, id string) (*auth.AccessPolicy, error) {
	var p *auth.AccessPolicy
	err := s.store.View(r.Context(), func(tx store.Tx) error {
		q, err := loadQueue(tx, account, name)
		if azerr.Is(err, azerr.QueueNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		p = accesspolicy.Find(q.ACL, id)
		return nil
	})
	return p, err
}

// readBody reads a request body of at most limit bytes; a larger one is 413
// RequestBodyTooLarge with the limit, as the service reports it.
func readBody(r *http.Request, limit int64) ([]byte, error) {
	return request.ReadBody(r, limit)
}
