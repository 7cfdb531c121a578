package table

import (
	"bytes"
	"encoding/json"
	"errors"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/record"
	"github.com/lazuli-storage/lazuli/internal/frame/accesspolicy"
)

// A table record is written in the codec of package record: tableFormat,
// then tagged fields. Records written before it are a JSON object, told
// apart by their first byte, '{'; decodeTableJSON reads them, and a
// table's next write stores it in tableFormat.
const tableFormat = 1

// Table record fields (tags).
const (
	ttagName     = 1
	ttagPolicies = 2 // accesspolicy's stored form
	ttagID       = 3
	ttagTracked  = 4
)

var errBadTableRecord = errors.New("table: malformed table record")

func (r *tableRecord) encode() []byte {
	e := record.NewEncoder(32 + len(r.Name))
	e.Byte(tableFormat)
	e.Field(ttagName, func(e *record.Encoder) { e.Str(r.Name) })
	if len(r.ACL) > 0 {
		e.Field(ttagPolicies, func(e *record.Encoder) { accesspolicy.EncodeRecord(e, r.ACL) })
	}
	if r.ID != 0 {
		e.Field(ttagID, func(e *record.Encoder) { e.Fixed64(r.ID) })
	}
	if len(r.Tracked) > 0 {
		e.Field(ttagTracked, func(e *record.Encoder) {
			e.Uvarint(uint64(len(r.Tracked)))
			for _, pk := range r.Tracked {
				e.Raw(pk)
			}
		})
	}
	return e.Bytes()
}

func decodeTable(v []byte) (*tableRecord, error) {
	if len(v) > 0 && v[0] == '{' {
		return decodeTableJSON(v)
	}
	if len(v) == 0 || v[0] != tableFormat {
		return nil, errBadTableRecord
	}
	r := &tableRecord{}
	d := record.NewDecoder(v[1:])
	d.Fields(func(tag byte, p *record.Decoder) {
		switch tag {
		case ttagName:
			r.Name = p.Str()
		case ttagPolicies:
			r.ACL = accesspolicy.DecodeRecord(p)
		case ttagID:
			r.ID = p.Fixed64()
		case ttagTracked: // copied: v belongs to the store
			n := p.Count()
			for i := 0; i < n && p.Err() == nil; i++ {
				r.Tracked = append(r.Tracked, bytes.Clone(p.Raw()))
			}
		}
	})
	if d.Err() != nil {
		return nil, errBadTableRecord
	}
	return r, nil
}

// decodeTableJSON reads a table record of the JSON format tables were
// stored in before tableFormat. Its policies kept their instants as Get
// Table ACL renders them, and an identifier without a policy as an empty
// one.
func decodeTableJSON(v []byte) (*tableRecord, error) {
	var stored struct {
		Name string `json:"n"`
		ACL  []struct {
			ID     string `json:"i"`
			Policy struct {
				Start      string `json:"s"`
				Expiry     string `json:"e"`
				Permission string `json:"r"`
			} `json:"p"`
		} `json:"a"`
		ID      uint64   `json:"i"`
		Tracked [][]byte `json:"t"`
	}
	if err := json.Unmarshal(v, &stored); err != nil {
		return nil, errBadTableRecord
	}
	r := &tableRecord{Name: stored.Name, ID: stored.ID, Tracked: stored.Tracked}
	for _, si := range stored.ACL {
		r.ACL = append(r.ACL, accesspolicy.Identifier{ID: si.ID, Permission: si.Policy.Permission,
			Start: storedTime(si.Policy.Start), Expiry: storedTime(si.Policy.Expiry)})
	}
	return r, nil
}

// storedTime reads an instant of the JSON format; empty is unset.
func storedTime(v string) *time.Time {
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return &t
	}
	return nil
}
