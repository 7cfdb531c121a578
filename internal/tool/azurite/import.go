package azurite

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/extent"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
)

// Counts is what an import wrote.
type Counts struct {
	Containers, Blobs, Snapshots, Blocks int
	Queues, Messages                     int
	Tables, Entities                     int
	// ServiceProperties counts the accounts' service properties, one
	// per account and service that set them.
	ServiceProperties int
	// Bytes is the blob content copied.
	Bytes int64
}

// String is the counts per kind, as the import's log line gives them.
func (c Counts) String() string {
	return fmt.Sprintf("%d containers, %d blobs, %d snapshots, %d uncommitted blocks (%d bytes of content); "+
		"%d queues, %d messages; %d tables, %d entities; %d service properties",
		c.Containers, c.Blobs, c.Snapshots, c.Blocks, c.Bytes, c.Queues, c.Messages, c.Tables, c.Entities, c.ServiceProperties)
}

// ErrNotEmpty is returned by Import when the store already holds Blob,
// Queue or Table records, which an import could silently replace.
var ErrNotEmpty = errors.New("the store already holds containers, queues or tables; import into an empty store")

// markerKey is the record that says the store holds an import, so that a
// server started again over the same folder does not import it twice.
func markerKey() []byte { return store.NewKey(store.SpaceMeta).Str("import").Str("azurite") }

// marker is the value of the marker record.
type marker struct {
	From   string    `json:"from"`
	At     time.Time `json:"at"`
	Counts Counts    `json:"counts"`
}

// Import reads the Azurite workspace in dir and writes it into an empty
// store and its extent engine. Nothing is written to the store unless all
// of it could be read.
func Import(ctx context.Context, dir string, st store.Store, ext extent.Engine, now time.Time) (Counts, error) {
	fail := func(err error) (Counts, error) { return Counts{}, fmt.Errorf("azurite workspace %s: %w", dir, err) }
	c := newCopier(ctx, ext)
	defer c.Close()
	p := &plan{}
	for _, read := range []func() error{
		func() error { return readBlobs(dir, c, p) },
		func() error { return readQueues(dir, c, p) },
		func() error { return readTables(dir, p) },
	} {
		if err := read(); err != nil {
			return fail(err)
		}
	}
	if p.databases == 0 {
		return fail(fmt.Errorf("none of Azurite's databases (%s, %s, %s) is in it", blobDB, queueDB, tableDB))
	}
	p.Bytes = c.Bytes
	from, err := filepath.Abs(dir)
	if err != nil {
		return fail(err)
	}
	mark, err := json.Marshal(marker{From: from, At: now.UTC(), Counts: p.Counts})
	if err != nil {
		return fail(err)
	}
	err = st.Update(ctx, func(tx store.Tx) error {
		if err := checkEmpty(tx); err != nil {
			return err
		}
		for _, w := range p.writes {
			if err := w(tx); err != nil {
				return err
			}
		}
		return tx.Put(markerKey(), mark)
	})
	if err != nil {
		return fail(err)
	}
	return p.Counts, nil
}

// ImportOnce imports the workspace in dir unless the store's marker
// record says it already holds an import; done reports whether this call
// imported.
func ImportOnce(ctx context.Context, dir string, st store.Store, ext extent.Engine, now time.Time) (c Counts, done bool, err error) {
	var marked bool
	err = st.View(ctx, func(tx store.Tx) error {
		_, err := tx.Get(markerKey())
		marked = err == nil
		if errors.Is(err, store.ErrNotFound) {
			err = nil
		}
		return err
	})
	if err != nil || marked {
		return Counts{}, false, err
	}
	c, err = Import(ctx, dir, st, ext, now)
	return c, err == nil, err
}

// checkEmpty refuses a store that holds Blob, Queue or Table records.
func checkEmpty(tx store.Tx) error {
	lo, hi := []byte{byte(store.SpaceContainer)}, []byte{byte(store.SpaceEntity) + 1}
	found := false
	err := tx.Scan(lo, hi, store.ScanOptions{Limit: 1}, func(k, _ []byte) bool {
		found = true
		return false
	})
	if err == nil && found {
		err = ErrNotEmpty
	}
	return err
}
