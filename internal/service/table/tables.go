package table

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"net/http"
	"regexp"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/accesspolicy"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/service/table/odata"
)

var tableNamePattern = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]*$`)

// tableRecord is the stored state of a table (table_record.go encodes it).
type tableRecord struct {
	Name string
	ACL  []accesspolicy.Identifier
	// ID is a random number naming this incarnation of the table, so that
	// cached partitions (partcache.go) of a deleted table never pass for
	// those of a table later created with the same name. Tables created
	// before IDs existed have 0, which is as unique: a table created again
	// gets an ID.
	ID uint64
	// Tracked lists the partitions that have a version record, which every
	// entity write to them bumps (version.go).
	Tracked [][]byte
}

// maxTracked bounds the tracked partitions of a table: every write to one
// pays for its version, and the table record is read by every request.
const maxTracked = 64

// tracks reports whether writes to partition pk bump its version.
func (r *tableRecord) tracks(pk string) bool {
	for _, t := range r.Tracked {
		if string(t) == pk {
			return true
		}
	}
	return false
}

// newTableID draws a table incarnation ID.
func newTableID() uint64 {
	for {
		if id := rand.Uint64(); id != 0 {
			return id
		}
	}
}

// lowerName is the case-insensitive identity of a table.
func lowerName(name string) string { return strings.ToLower(name) }

func tableKey(account, name string) []byte {
	return store.NewKey(store.SpaceTable).Str(account).Str(lowerName(name)).Bytes()
}

// checkTableName applies the service's naming rules on create.
func checkTableName(name string) error {
	if !tableNamePattern.MatchString(name) || strings.EqualFold(name, "tables") {
		return azerr.New(azerr.InvalidResourceName)
	}
	if len(name) < 3 || len(name) > 63 {
		return azerr.NameLengthOutOfRange()
	}
	return nil
}

// loadTable reads a table record; a missing table is TableNotFound.
func loadTable(tx store.Tx, account, name string) (*tableRecord, error) {
	v, err := tx.Get(tableKey(account, name))
	if errors.Is(err, store.ErrNotFound) {
		return nil, azerr.New(azerr.TableNotFound)
	}
	if err != nil {
		return nil, err
	}
	return decodeTable(v)
}

func saveTable(tx store.Tx, account string, rec *tableRecord) error {
	return tx.Put(tableKey(account, rec.Name), rec.encode())
}

func (s *Service) createTable(w http.ResponseWriter, r *http.Request) error {
	info := request.Of(r)
	m, err := negotiate(r)
	if err != nil {
		return err
	}
	if err := checkContentType(r); err != nil {
		return err
	}
	body, err := readBody(r)
	if err != nil {
		return err
	}
	var req struct{ TableName *string }
	if json.Unmarshal(body, &req) != nil || req.TableName == nil {
		return invalidInput("The request body must be a JSON object with a TableName.")
	}
	name := *req.TableName
	if err := checkTableName(name); err != nil {
		return err
	}
	err = s.st.Update(r.Context(), func(tx store.Tx) error {
		if _, err := tx.Get(tableKey(info.Account, name)); err == nil {
			return azerr.New(azerr.TableAlreadyExists)
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		return saveTable(tx, info.Account, &tableRecord{Name: name, ID: newTableID()})
	})
	if err != nil {
		return err
	}
	base := baseURL(r)
	h := w.Header()
	h.Set("Location", base+"/Tables('"+name+"')")
	h.Set("DataServiceId", base+"/Tables('"+name+"')")
	noContent, applied := preferNoContentHeader(r.Header.Get("Prefer"))
	if applied != "" {
		h.Set("Preference-Applied", applied)
	}
	if noContent {
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	var jw jsonWriter
	jw.open()
	if m != noMetadata {
		jw.str("odata.metadata", base+"/$metadata#Tables/@Element")
	}
	writeTableEntry(&jw, m, base, info.Account, name)
	jw.close()
	return writeJSON(w, m, http.StatusCreated, jw.b)
}

// writeTableEntry writes the members of one table in a Tables response.
func writeTableEntry(jw *jsonWriter, m metadata, base, account, name string) {
	if m == fullMetadata {
		jw.str("odata.type", account+".Tables")
		jw.str("odata.id", base+"/Tables('"+name+"')")
		jw.str("odata.editLink", "Tables('"+name+"')")
	}
	jw.str("TableName", name)
}

func (s *Service) getTable(w http.ResponseWriter, r *http.Request) error {
	info, t := request.Of(r), targetOf(r)
	m, err := negotiate(r)
	if err != nil {
		return err
	}
	var rec *tableRecord
	err = s.st.View(r.Context(), func(tx store.Tx) error {
		var err error
		rec, err = loadTable(tx, info.Account, t.table)
		return err
	})
	if azerr.Is(err, azerr.TableNotFound) {
		return azerr.New(azerr.ResourceNotFound)
	}
	if err != nil {
		return err
	}
	base := baseURL(r)
	var jw jsonWriter
	jw.open()
	if m != noMetadata {
		jw.str("odata.metadata", base+"/$metadata#Tables/@Element")
	}
	writeTableEntry(&jw, m, base, info.Account, rec.Name)
	jw.close()
	return writeJSON(w, m, http.StatusOK, jw.b)
}

func (s *Service) deleteTable(w http.ResponseWriter, r *http.Request) error {
	info, t := request.Of(r), targetOf(r)
	err := s.st.Update(r.Context(), func(tx store.Tx) error {
		return dropTable(tx, info.Account, t.table)
	})
	if azerr.Is(err, azerr.TableNotFound) {
		return azerr.New(azerr.ResourceNotFound)
	}
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// dropTable removes a table with its entities and partition versions.
func dropTable(tx store.Tx, account, name string) error {
	if _, err := loadTable(tx, account, name); err != nil {
		return err
	}
	if err := tx.Delete(tableKey(account, name)); err != nil {
		return err
	}
	if err := store.DeletePrefix(tx, versionPrefix(account, name)); err != nil {
		return err
	}
	return store.DeletePrefix(tx, tablePrefix(account, name))
}

// tableEntity lets the filter evaluator see a table as {TableName}.
type tableEntity string

func (t tableEntity) Property(name string) (odata.Value, bool) {
	if name == "TableName" {
		return odata.String(string(t)), true
	}
	return odata.Value{}, false
}

func (s *Service) queryTables(w http.ResponseWriter, r *http.Request) error {
	info := request.Of(r)
	m, err := negotiate(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	filter, err := parseFilter(q.Get("$filter"))
	if err != nil {
		return err
	}
	top, err := parseTop(q.Get("$top"))
	if err != nil {
		return err
	}
	prefix := store.NewKey(store.SpaceTable).Str(info.Account)
	start := prefix.Bytes()
	if next := q.Get("NextTableName"); next != "" {
		name, ok := decodeToken(next)
		if !ok {
			return azerr.InvalidQuery("NextTableName", next, "invalid continuation token")
		}
		start = keyWith(prefix, name).Bytes()
	}
	var names []string
	var nextName string
	err = s.st.View(r.Context(), func(tx store.Tx) error {
		return tx.Scan(start, store.PrefixEnd(prefix), store.ScanOptions{}, func(_, v []byte) bool {
			rec, err := decodeTable(v)
			if err != nil || !filter.Match(tableEntity(rec.Name)) {
				return true
			}
			if len(names) == top {
				nextName = lowerName(rec.Name)
				return false
			}
			names = append(names, rec.Name)
			return true
		})
	})
	if err != nil {
		return err
	}
	if nextName != "" {
		w.Header().Set("x-ms-continuation-NextTableName", encodeToken(nextName))
	}
	base := baseURL(r)
	var jw jsonWriter
	jw.open()
	if m != noMetadata {
		jw.str("odata.metadata", base+"/$metadata#Tables")
	}
	jw.key("value")
	jw.b = append(jw.b, '[')
	for i, name := range names {
		if i > 0 {
			jw.b = append(jw.b, ',')
		}
		jw.open()
		writeTableEntry(&jw, m, base, info.Account, name)
		jw.close()
	}
	jw.b = append(jw.b, ']')
	jw.first = false
	jw.close()
	return writeJSON(w, m, http.StatusOK, jw.b)
}
