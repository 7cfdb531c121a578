package queue

import (
	"encoding/json"
	"errors"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/record"
	"github.com/lazuli-storage/lazuli/internal/frame/accesspolicy"
	"github.com/lazuli-storage/lazuli/internal/rule/metadata"
)

// A queue record is written in the codec of package record: queueFormat,
// then tagged fields. Records written before it are a JSON object
// ({"v":1,...}), told apart by their first byte, '{'; they are read by
// decodeQueueJSON and become the current format at the queue's next write.
const queueFormat = 2

// Queue record fields (tags).
const (
	qtagMetadata = 1
	qtagPolicies = 2 // accesspolicy's stored form
)

var errBadQueueRecord = errors.New("queue: malformed queue record")

// queueRecord is the stored state of a queue. It is read on every message
// operation only for existence, so its encoding is not on a hot path.
type queueRecord struct {
	Meta metadata.Set
	ACL  []accesspolicy.Identifier
}

func (q queueRecord) encode() []byte {
	e := record.NewEncoder(32)
	e.Byte(queueFormat)
	if len(q.Meta) > 0 {
		e.Field(qtagMetadata, q.Meta.Encode)
	}
	if len(q.ACL) > 0 {
		e.Field(qtagPolicies, func(e *record.Encoder) { accesspolicy.EncodeRecord(e, q.ACL) })
	}
	return e.Bytes()
}

func decodeQueue(v []byte) (queueRecord, error) {
	var q queueRecord
	if len(v) > 0 && v[0] == '{' {
		return decodeQueueJSON(v)
	}
	if len(v) == 0 || v[0] != queueFormat {
		return q, errBadQueueRecord
	}
	d := record.NewDecoder(v[1:])
	d.Fields(func(tag byte, p *record.Decoder) {
		switch tag {
		case qtagMetadata:
			q.Meta = metadata.Decode(p)
		case qtagPolicies:
			q.ACL = accesspolicy.DecodeRecord(p)
		}
	})
	if d.Err() != nil {
		return queueRecord{}, errBadQueueRecord
	}
	return q, nil
}

// decodeQueueJSON reads a queue record of the JSON format, version 1, that
// queues were stored in before queueFormat.
func decodeQueueJSON(v []byte) (queueRecord, error) {
	var stored struct {
		V    int          `json:"v"`
		Meta metadata.Set `json:"meta"`
		ACL  []struct {
			ID         string     `json:"id"`
			Start      *time.Time `json:"start"`
			Expiry     *time.Time `json:"expiry"`
			Permission string     `json:"perm"`
		} `json:"acl"`
	}
	if err := json.Unmarshal(v, &stored); err != nil || stored.V != 1 {
		return queueRecord{}, errBadQueueRecord
	}
	q := queueRecord{Meta: stored.Meta}
	for _, id := range stored.ACL {
		q.ACL = append(q.ACL, accesspolicy.Identifier(id))
	}
	return q, nil
}
