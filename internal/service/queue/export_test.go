package queue

import (
	"bytes"
	"context"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

// PutBacklog lets the outside tests (package queue_test) store a backlog of
// messages faster than Put Message could.
var PutBacklog = putBacklog

// StoreQueueRecord puts a queue record's stored bytes as they are, and
// QueueRecord reads them back, so black-box tests can hold the server to
// records an earlier format wrote.
func StoreQueueRecord(st store.Store, account, name string, v []byte) error {
	return st.Update(context.Background(), func(tx store.Tx) error { return tx.Put(queueKey(account, name), v) })
}

func QueueRecord(st store.Store, account, name string) (v []byte, err error) {
	err = st.View(context.Background(), func(tx store.Tx) error {
		v, err = tx.Get(queueKey(account, name))
		v = bytes.Clone(v)
		return err
	})
	return v, err
}

// QueueFormat is the first byte of a queue record written now, and
// GoldenQueueACL the Get Queue ACL body of testdata/queue_record_v1.json.
const (
	QueueFormat    = queueFormat
	GoldenQueueACL = goldenQueueACL
)
