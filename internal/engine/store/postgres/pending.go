package postgres

import (
	"slices"

	"github.com/jackc/pgx/v5"
)

// An Update's Puts and Deletes are not sent one statement each, which made a
// large transaction (a Data Lake rename rewrites every key of a tree in one)
// cost a round trip per record. They wait in the Tx, the last write of each
// key replacing the earlier ones, and are sent together as one DELETE of an
// array of keys and one INSERT ... ON CONFLICT from two arrays, pipelined in
// one round trip:
//
//   - before COMMIT, so nothing is acknowledged that the database has not
//     received; a failure there (a serialization failure included) is the
//     Update's error, and retried like any other;
//   - before a Scan, which reads the database and must see them;
//   - whenever maxPendingRecords or maxPendingBytes are reached, which bounds
//     the memory a transaction of any size holds.
//
// A Get of a written key is answered from the writes, and any other Get from
// the database, whose answer no pending write can change.
const (
	maxPendingRecords = 8192
	maxPendingBytes   = 8 << 20
)

// pendingWrite is the last write of one key: its value, or a delete.
type pendingWrite struct {
	value   []byte
	deleted bool
}

// pendingWrites holds an Update's writes that the database has not seen.
type pendingWrites struct {
	byKey map[string]pendingWrite
	bytes int
}

// add records a write of key (copied: callers reuse key buffers) and reports
// whether the writes should now be sent.
func (p *pendingWrites) add(key []byte, w pendingWrite) (full bool) {
	if p.byKey == nil {
		p.byKey = make(map[string]pendingWrite)
	}
	p.byKey[string(key)] = w
	p.bytes += len(key) + len(w.value)
	return len(p.byKey) >= maxPendingRecords || p.bytes >= maxPendingBytes
}

// lookup returns the pending write of key, if there is one.
func (p *pendingWrites) lookup(key []byte) (pendingWrite, bool) {
	w, ok := p.byKey[string(key)]
	return w, ok
}

// batch empties p into the statements that apply its writes, in key order
// so that concurrent Updates lock the rows they share in the same order
// (fewer deadlocks to retry). It returns nil when nothing is pending.
func (p *pendingWrites) batch(sql *statements) *pgx.Batch {
	if len(p.byKey) == 0 {
		return nil
	}
	keys := make([]string, 0, len(p.byKey))
	for k := range p.byKey {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var deleted, putKeys, putValues [][]byte
	for _, k := range keys {
		w := p.byKey[k]
		if w.deleted {
			deleted = append(deleted, nonNil([]byte(k)))
		} else {
			putKeys, putValues = append(putKeys, nonNil([]byte(k))), append(putValues, w.value)
		}
	}
	clear(p.byKey)
	p.bytes = 0
	b := &pgx.Batch{}
	if len(deleted) > 0 {
		b.Queue(sql.deleteMany, deleted)
	}
	if len(putKeys) > 0 {
		b.Queue(sql.putMany, putKeys, putValues)
	}
	return b
}

// flush sends the pending writes, if any, in one round trip.
func (t *tx) flush() error {
	b := t.pending.batch(t.sql)
	if b == nil {
		return nil
	}
	if err := t.tx.SendBatch(t.ctx, b).Close(); err != nil {
		return t.fail("write", err)
	}
	return nil
}
