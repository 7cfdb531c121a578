package azurite

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Azurite's database and extent folder names inside its --location
// folder (Azurite's src/blob/utils/constants.ts, queue and table alike).
const (
	blobDB        = "__azurite_db_blob__.json"
	blobExtentDB  = "__azurite_db_blob_extent__.json"
	blobFolder    = "__blobstorage__"
	queueDB       = "__azurite_db_queue__.json"
	queueExtentDB = "__azurite_db_queue_extent__.json"
	queueFolder   = "__queuestorage__"
	tableDB       = "__azurite_db_table__.json"
)

// lokiDB is a LokiJS database as its fs adapter saves it: one JSON
// document with every collection and its documents.
type lokiDB struct {
	path        string
	collections map[string][]json.RawMessage
}

// readLoki reads a LokiJS database file. A missing file is an empty
// database (found false): Azurite writes a service's file only once the
// service has data.
func readLoki(dir, name string) (db lokiDB, found bool, err error) {
	db = lokiDB{path: name, collections: map[string][]json.RawMessage{}}
	b, err := os.ReadFile(filepath.Join(dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return db, false, nil
	}
	if err != nil {
		return db, false, err
	}
	var doc struct {
		Collections []struct {
			Name string            `json:"name"`
			Data []json.RawMessage `json:"data"`
		} `json:"collections"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return db, false, fmt.Errorf("%s: not a LokiJS database: %w", name, err)
	}
	for _, c := range doc.Collections {
		db.collections[c.Name] = c.Data
	}
	return db, true, nil
}

// each decodes every document of a collection into a new T and calls fn.
func each[T any](db lokiDB, collection string, fn func(*T) error) error {
	for i, raw := range db.collections[collection] {
		doc := new(T)
		if err := json.Unmarshal(raw, doc); err != nil {
			return fmt.Errorf("%s: %s document %d: %w", db.path, collection, i, err)
		}
		if err := fn(doc); err != nil {
			return err
		}
	}
	return nil
}
