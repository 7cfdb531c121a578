package azurite

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/rule/etag"
	"github.com/lazuli-storage/lazuli/internal/service/table"
)

// azTable is a document of Azurite's $TABLES_COLLECTION$. Its entities
// are the collection named account + "$" + table.
type azTable struct {
	Account string         `json:"account"`
	Name    string         `json:"table"`
	ACL     []azIdentifier `json:"tableAcl"`
}

// azEntity is an entity document: its properties as the JSON of an
// Insert Entity body (keys, Timestamp and @odata.type annotations
// included), and its ETag.
type azEntity struct {
	Properties   json.RawMessage `json:"properties"`
	ETag         string          `json:"eTag"`
	LastModified time.Time       `json:"lastModifiedTime"`
}

// readTables plans the Table service's import: the accounts' service
// properties, tables, then their entities with their own timestamps, so
// their ETags stay.
func readTables(dir string, p *plan) error {
	db, found, err := readLoki(dir, tableDB)
	if err != nil || !found {
		return err
	}
	p.databases++
	if err := planServiceProps(db, auth.Table, p); err != nil {
		return err
	}
	return each(db, "$TABLES_COLLECTION$", func(d *azTable) error {
		acl, err := policiesOf(d.ACL)
		if err != nil {
			return fmt.Errorf("table %s: %w", d.Name, err)
		}
		p.Tables++
		p.write(func(tx store.Tx) error { return table.ImportTable(tx, d.Account, d.Name, acl) })
		return each(db, d.Account+"$"+d.Name, func(e *azEntity) error {
			body, err := entityBody(e.Properties)
			if err != nil {
				return fmt.Errorf("entity of table %s: %w", d.Name, err)
			}
			ticks := int64(etag.FromTime(entityTime(e)))
			p.Entities++
			p.write(func(tx store.Tx) error { return table.ImportEntity(tx, d.Account, d.Name, body, ticks) })
			return nil
		})
	})
}

// entityTime is an entity's Timestamp: the instant its ETag names
// (W/"datetime'2026-11-28T03%3A37%3A06.7737495Z'", to the 100 ns), or
// its last modification time.
func entityTime(e *azEntity) time.Time {
	s := strings.TrimSuffix(strings.TrimPrefix(e.ETag, `W/"datetime'`), `'"`)
	if s, err := url.QueryUnescape(s); err == nil {
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return t
		}
	}
	return e.LastModified
}

// entityBody is an entity's properties as an Insert Entity body. Azurite
// keeps an Edm.Guid as the base64 of its text (its EdmGuid.validate);
// that is undone, keeping the members in their order.
func entityBody(props json.RawMessage) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(props))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("properties are not a JSON object")
	}
	type member struct {
		name string
		raw  json.RawMessage
	}
	var members []member
	guids := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := t.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		if prop, ok := strings.CutSuffix(name, "@odata.type"); ok && string(raw) == `"Edm.Guid"` {
			guids[prop] = true
		}
		members = append(members, member{name, raw})
	}
	out := []byte{'{'}
	for i, m := range members {
		if i > 0 {
			out = append(out, ',')
		}
		key, _ := json.Marshal(m.name)
		out = append(append(out, key...), ':')
		out = append(out, guidText(m.raw, guids[m.name])...)
	}
	return append(out, '}'), nil
}

// guidText undoes Azurite's base64 of a GUID's text; a value that is not
// the base64 of a GUID (a GUID itself, from older Azurite releases)
// stays.
func guidText(raw json.RawMessage, isGuid bool) json.RawMessage {
	var s string
	if !isGuid || json.Unmarshal(raw, &s) != nil {
		return raw
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || !looksLikeGuid(b) {
		return raw
	}
	text, _ := json.Marshal(string(b))
	return text
}

// looksLikeGuid reports whether b is a GUID's text: 32 hex digits, with
// or without hyphens and braces.
func looksLikeGuid(b []byte) bool {
	digits := 0
	for _, c := range b {
		switch {
		case '0' <= c && c <= '9', 'a' <= c && c <= 'f', 'A' <= c && c <= 'F':
			digits++
		case c != '-' && c != '{' && c != '}':
			return false
		}
	}
	return digits == 32
}
