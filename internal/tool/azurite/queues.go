package azurite

import (
	"fmt"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/service/queue"
)

// azQueue is a document of Azurite's $QUEUES_COLLECTION$.
type azQueue struct {
	Account  string            `json:"accountName"`
	Name     string            `json:"name"`
	Metadata map[string]string `json:"metadata"`
	ACL      []azIdentifier    `json:"queueAcl"`
}

// azMessage is a document of Azurite's $MESSAGES_COLLECTION$; its text is
// in a queue extent.
type azMessage struct {
	Account     string    `json:"accountName"`
	Queue       string    `json:"queueName"`
	ID          string    `json:"messageId"`
	Inserted    time.Time `json:"insertionTime"`
	Expires     time.Time `json:"expirationTime"`
	NextVisible int64     `json:"timeNextVisible"` // Unix ms
	Dequeues    uint32    `json:"dequeueCount"`
	Persistency chunk     `json:"persistency"`
}

// neverExpires is from when an Azurite expiry means never: a message put
// with messagettl=-1 expires in year 9999 there.
var neverExpires = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)

// readQueues plans the Queue service's import: the accounts' service
// properties, queues, then messages with their text read from the queue
// extents.
func readQueues(dir string, c *copier, p *plan) error {
	db, found, err := readLoki(dir, queueDB)
	if err != nil || !found {
		return err
	}
	p.databases++
	folder, err := readExtentFolder(dir, queueExtentDB, queueFolder)
	if err != nil {
		return err
	}
	if err := planServiceProps(db, auth.Queue, p); err != nil {
		return err
	}
	err = each(db, "$QUEUES_COLLECTION$", func(d *azQueue) error {
		acl, err := policiesOf(d.ACL)
		if err != nil {
			return fmt.Errorf("queue %s: %w", d.Name, err)
		}
		meta := metadataOf(d.Metadata)
		p.Queues++
		p.write(func(tx store.Tx) error { return queue.ImportQueue(tx, d.Account, d.Name, meta, acl) })
		return nil
	})
	if err != nil {
		return err
	}
	return each(db, "$MESSAGES_COLLECTION$", func(d *azMessage) error {
		text, err := c.read(folder, d.Persistency, fmt.Sprintf("message %s of queue %s", d.ID, d.Queue))
		if err != nil {
			return err
		}
		m := queue.ImportedMessage{ID: d.ID, Text: text, Inserted: d.Inserted, Expires: d.Expires,
			VisibleAt: time.UnixMilli(d.NextVisible).UTC(), Dequeues: d.Dequeues}
		if !m.Expires.Before(neverExpires) {
			m.Expires = time.Time{}
		}
		p.Messages++
		p.write(func(tx store.Tx) error { return queue.ImportMessage(tx, d.Account, d.Queue, m) })
		return nil
	})
}
