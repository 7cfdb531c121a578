package table

import (
	"fmt"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/accesspolicy"
	"github.com/lazuli-storage/lazuli/internal/service/table/odata"
)

// This file is the Table service's side of importing another emulator's
// data (internal/tool/azurite): tables and entities stored as Create Table
// and Insert Entity would have stored them, inside the importer's
// transaction, with the entity's own Timestamp (and so its ETag) kept.

// ImportTable writes a table record.
func ImportTable(tx store.Tx, account, name string, acl []accesspolicy.Identifier) error {
	if err := checkTableName(name); err != nil {
		return fmt.Errorf("table %q: %w", name, err)
	}
	return saveTable(tx, account, &tableRecord{Name: name, ACL: acl, ID: newTableID()})
}

// ImportEntity writes an entity of a table ImportTable wrote. body is the
// entity as an Insert Entity request carries it (JSON with @odata.type
// annotations, keys included); timestamp is its Timestamp in 100 ns ticks
// since 0001-01-01, which is also its ETag.
func ImportEntity(tx store.Tx, account, table string, body []byte, timestamp int64) error {
	p, err := parsePayload(body)
	if err != nil {
		return fmt.Errorf("entity of table %s: %w", table, err)
	}
	if p.PK == nil || p.RK == nil {
		return fmt.Errorf("entity of table %s: no PartitionKey or RowKey", table)
	}
	e := &Entity{PK: *p.PK, RK: *p.RK, Timestamp: timestamp}
	for _, prop := range p.Props {
		if prop.Value.Kind != odata.KindNull { // as Insert Entity stores none
			e.Props = append(e.Props, prop)
		}
	}
	if err := checkEntity(e); err != nil {
		return fmt.Errorf("entity (%q, %q) of table %s: %w", e.PK, e.RK, table, err)
	}
	return tx.Put(entityKey(account, table, e.PK, e.RK), encodeEntity(e))
}
