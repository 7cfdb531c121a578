package table

import (
	"encoding/base64"
	"math"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/service/table/odata"
)

// metadata is the OData JSON metadata level of a response.
type metadata int

const (
	noMetadata metadata = iota
	minimalMetadata
	fullMetadata
)

var metadataNames = [...]string{"nometadata", "minimalmetadata", "fullmetadata"}

// contentType is the response Content-Type for the level.
func (m metadata) contentType() string {
	return "application/json;odata=" + metadataNames[m] + ";streaming=true;charset=utf-8"
}

// negotiate picks the metadata level from $format, else Accept. Atom and
// XML are refused: the service speaks JSON only since 2015-12-11.
func negotiate(r *http.Request) (metadata, error) {
	return negotiateValues(r.URL.Query().Get("$format"), r.Header.Get("Accept"))
}

// negotiateValues picks the level from a $format value and an Accept header.
func negotiateValues(format, accept string) (metadata, error) {
	if format != "" {
		return parseFormat(format)
	}
	if accept == "" {
		return minimalMetadata, nil
	}
	atom := false
	for _, part := range strings.Split(accept, ",") {
		m, err := parseFormat(strings.TrimSpace(part))
		if err == nil {
			return m, nil
		}
		if azerr.Is(err, azerr.AtomFormatNotSupported) {
			atom = true
		}
	}
	if atom {
		return 0, azerr.New(azerr.AtomFormatNotSupported)
	}
	return minimalMetadata, nil
}

// parseFormat reads one media type (or $format value).
func parseFormat(s string) (metadata, error) {
	switch strings.ToLower(s) {
	case "json":
		return minimalMetadata, nil
	case "atom", "xml":
		return 0, azerr.New(azerr.AtomFormatNotSupported)
	}
	mt, params, err := mime.ParseMediaType(s)
	if err != nil {
		return 0, invalidInput("Invalid format " + s + ".")
	}
	switch mt {
	case "application/json", "*/*", "application/*":
	case "application/atom+xml", "application/xml", "text/xml":
		return 0, azerr.New(azerr.AtomFormatNotSupported)
	default:
		return 0, invalidInput("Unsupported format " + s + ".")
	}
	switch strings.ToLower(params["odata"]) {
	case "nometadata":
		return noMetadata, nil
	case "fullmetadata":
		return fullMetadata, nil
	case "minimalmetadata", "", "verbose":
		return minimalMetadata, nil
	}
	return 0, invalidInput("Unsupported odata metadata level " + params["odata"] + ".")
}

// jsonWriter builds a JSON object by hand: entities are rendered in their
// stored property order with their type annotations, which a map-based
// encoder cannot do, and a query page renders many of them.
type jsonWriter struct {
	b     []byte
	first bool
}

func (w *jsonWriter) open() {
	w.b = append(w.b, '{')
	w.first = true
}

func (w *jsonWriter) close() {
	w.b = append(w.b, '}')
	w.first = false
}

func (w *jsonWriter) key(k string) {
	if !w.first {
		w.b = append(w.b, ',')
	}
	w.first = false
	w.b = appendJSONString(w.b, k)
	w.b = append(w.b, ':')
}

func (w *jsonWriter) str(k, v string) {
	w.key(k)
	w.b = appendJSONString(w.b, v)
}

// appendJSONString appends s as a JSON string.
func appendJSONString(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		// Copy the run of characters that need no escaping at once.
		run := i
		for run < len(s) && s[run] >= 0x20 && s[run] != '"' && s[run] != '\\' && s[run] < utf8.RuneSelf {
			run++
		}
		if run > i {
			b = append(b, s[i:run]...)
			i = run
			continue
		}
		c := s[i]
		if c < utf8.RuneSelf {
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// annotate reports whether a property of kind k carries an @odata.type
// annotation at level m.
func annotate(m metadata, v odata.Value) bool {
	switch m {
	case noMetadata:
		return false
	case fullMetadata:
		return v.Kind != odata.KindString && v.Kind != odata.KindInt32 && v.Kind != odata.KindBool
	}
	switch v.Kind {
	case odata.KindInt64, odata.KindDateTime, odata.KindGuid, odata.KindBinary:
		return true
	case odata.KindDouble:
		// A special value travels as a string and needs its type.
		return math.IsNaN(v.Float) || math.IsInf(v.Float, 0)
	}
	return false
}

// property writes one property with its annotation when the level needs it.
func (w *jsonWriter) property(m metadata, name string, v odata.Value) {
	if annotate(m, v) {
		w.str(name+"@odata.type", v.Kind.EDMName())
	}
	w.key(name)
	w.b = appendValueJSON(w.b, v)
}

func appendValueJSON(b []byte, v odata.Value) []byte {
	switch v.Kind {
	case odata.KindString, odata.KindGuid:
		return appendJSONString(b, v.Str)
	case odata.KindBinary:
		b = append(b, '"')
		b = base64.StdEncoding.AppendEncode(b, v.Bytes)
		return append(b, '"')
	case odata.KindBool:
		return strconv.AppendBool(b, v.Int == 1)
	case odata.KindInt32:
		return strconv.AppendInt(b, v.Int, 10)
	case odata.KindInt64:
		b = append(b, '"')
		b = strconv.AppendInt(b, v.Int, 10)
		return append(b, '"')
	case odata.KindDateTime:
		b = append(b, '"')
		b = odata.AppendDateTimeValue(b, v.Int)
		return append(b, '"')
	case odata.KindDouble:
		return appendDouble(b, v.Float)
	}
	return append(b, "null"...)
}

// appendDouble writes a double so that it reads back as a double: special
// values as strings, whole numbers with a ".0".
func appendDouble(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(b, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(b, `"-Infinity"`...)
	}
	start := len(b)
	b = strconv.AppendFloat(b, f, 'g', -1, 64)
	for _, c := range b[start:] {
		if c == '.' || c == 'e' || c == 'E' {
			return b
		}
	}
	return append(b, ".0"...)
}

// entityJSON writes one entity object at level m. base is the service URL
// (for odata.id), table the table name as addressed.
func (w *jsonWriter) entity(m metadata, e *Entity, base, table, account string, sel *selection) {
	if m == fullMetadata {
		link := entityPath(table, e.PK, e.RK)
		w.str("odata.type", account+"."+table)
		w.str("odata.id", base+"/"+link)
		w.key("odata.etag")
		w.b = appendJSONETag(w.b, e.Timestamp)
		w.str("odata.editLink", link)
	} else if m == minimalMetadata {
		w.key("odata.etag")
		w.b = appendJSONETag(w.b, e.Timestamp)
	}
	if sel.has("PartitionKey") {
		w.str("PartitionKey", e.PK)
	}
	if sel.has("RowKey") {
		w.str("RowKey", e.RK)
	}
	if sel.has("Timestamp") {
		if m == fullMetadata {
			w.str("Timestamp@odata.type", "Edm.DateTime")
		}
		w.key("Timestamp")
		w.b = append(w.b, '"')
		w.b = odata.AppendDateTime(w.b, e.Timestamp)
		w.b = append(w.b, '"')
	}
	for _, p := range e.Props {
		if sel.has(p.Name) {
			w.property(m, p.Name, p.Value)
		}
	}
	if sel != nil {
		// A selected property the entity lacks is returned as null.
		for _, name := range sel.missing(e) {
			w.key(name)
			w.b = append(w.b, "null"...)
		}
	}
}

// entityPath is the entity's resource path: table(PartitionKey='..',RowKey='..')
// with quotes doubled and the keys URL-escaped.
func entityPath(table, pk, rk string) string {
	return table + "(PartitionKey='" + escapeKey(pk) + "',RowKey='" + escapeKey(rk) + "')"
}

func escapeKey(k string) string {
	return pathEscape(strings.ReplaceAll(k, "'", "''"))
}

// baseURL is the service root as the client addressed it, for odata.id,
// odata.metadata and Location values.
func baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	base := scheme + "://" + r.Host
	if info := request.Of(r); info.PathStyle {
		base += "/" + info.Account
	}
	return base
}

// writeJSON sends a JSON body with the headers the service puts on OData
// responses.
func writeJSON(w http.ResponseWriter, m metadata, status int, body []byte) error {
	h := w.Header()
	h.Set("Content-Type", m.contentType())
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-cache")
	h.Set("DataServiceVersion", "3.0;")
	w.WriteHeader(status)
	_, err := w.Write(body)
	return err
}
