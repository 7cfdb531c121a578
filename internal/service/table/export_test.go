package table

import (
	"bytes"
	"context"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

// QueryCacheHits is how many times queries were answered from a cached
// partition, so black-box tests can tell a warm cache from a cold one.
func (s *Service) QueryCacheHits() int64 { return s.parts.hits.Load() }

// SetSmallPartitions lowers the partition size from which partitions are
// tracked and cached partitions get property indexes, so tests exercise
// both on small tables. Call it before the service serves requests.
func (s *Service) SetSmallPartitions(n int) { s.parts.minIndexRows, s.parts.minTrackRows = n, n }

// StoreTableRecord puts a table record's stored bytes as they are, and
// TableRecord reads them back, so black-box tests can hold the server to
// records an earlier format wrote.
func StoreTableRecord(st store.Store, account, name string, v []byte) error {
	return st.Update(context.Background(), func(tx store.Tx) error { return tx.Put(tableKey(account, name), v) })
}

func TableRecord(st store.Store, account, name string) (v []byte, err error) {
	err = st.View(context.Background(), func(tx store.Tx) error {
		v, err = tx.Get(tableKey(account, name))
		v = bytes.Clone(v)
		return err
	})
	return v, err
}

// TableFormat is the first byte of a table record written now, and
// GoldenTableACL the Get Table ACL body of testdata/table_record_v1.json.
const (
	TableFormat    = tableFormat
	GoldenTableACL = goldenTableACL
)
