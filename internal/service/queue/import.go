package queue

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/accesspolicy"
	"github.com/lazuli-storage/lazuli/internal/rule/metadata"
)

// This file is the Queue service's side of importing another emulator's
// data (internal/tool/azurite): a queue and its messages stored as Create
// Queue and Put Message would have stored them, inside the importer's
// transaction.

// ImportQueue writes a queue record.
func ImportQueue(tx store.Tx, account, name string, meta metadata.Set, acl []accesspolicy.Identifier) error {
	return tx.Put(queueKey(account, name), queueRecord{Meta: meta, ACL: acl}.encode())
}

// ImportedMessage is a message to import. A message that never expires
// has a zero Expires.
type ImportedMessage struct {
	// ID is the message ID, a GUID in hyphenated form.
	ID                           string
	Text                         []byte
	Inserted, Expires, VisibleAt time.Time
	Dequeues                     uint32
}

// ImportMessage writes a message of a queue ImportQueue wrote. Messages
// of equal visibility are delivered in the order of their insertion
// times; the pop receipt of an earlier delivery is not carried over (a
// new nonce is drawn), as the receipts another emulator issued cannot be
// read here.
func ImportMessage(tx store.Tx, account, queue string, im ImportedMessage) error {
	id, ok := parseID(im.ID)
	if !ok {
		return fmt.Errorf("queue %s: message ID %q is not a GUID", queue, im.ID)
	}
	m := message{ID: id, Seq: nanos(im.Inserted), Inserted: nanos(im.Inserted), Expires: neverExpires,
		VisibleAt: nanos(im.VisibleAt), Nonce: rand.Uint64(), Dequeues: im.Dequeues, Text: im.Text}
	if !im.Expires.IsZero() {
		m.Expires = nanos(im.Expires)
	}
	return tx.Put(msgKey(msgPrefix(account, queue), m.VisibleAt, m.Seq, &m.ID), encodeValue(&m))
}
