package table

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"math"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"

	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/service/table/odata"
)

// Service limits (Table service data model).
const (
	maxProperties    = 255     // including PartitionKey, RowKey and Timestamp
	maxEntityBytes   = 1 << 20 // 1 MiB, as the service sizes an entity
	maxValueBytes    = 64 << 10
	maxKeyBytes      = 1 << 10
	maxNameChars     = 255
	maxRequestBytes  = 4 << 20
	systemProperties = 3
)

// payload is a parsed entity request body: the keys if it carried them, and
// its custom properties in order. A null property value is kept with
// KindNull: Update removes such properties, Merge ignores them.
type payload struct {
	PK, RK       *string
	Props        []Property
	sawTimestamp bool
}

// maxDiscardBytes bounds how much of a body over maxRequestBytes is read
// and dropped before the 413: enough that a client which sends its whole
// body before reading (the JavaScript and Python SDKs' HTTP stacks) reads
// the answer of a batch somewhat over the limit, not a connection reset;
// past it the connection is closed, so a sender of an endless body costs
// the server at most this much reading, at the connection's minimum rate.
const maxDiscardBytes = 4 * maxRequestBytes

// readBody reads a request body up to the service's 4 MiB limit. Over it
// the answer is 413 RequestBodyTooLarge, once what is left of the body, up
// to maxDiscardBytes, is read and dropped; a client waiting for 100 Continue
// has sent none of it, and is answered at once.
func readBody(r *http.Request) ([]byte, error) {
	body, err := request.ReadBody(r, maxRequestBytes)
	if azerr.Is(err, azerr.RequestBodyTooLarge) && !strings.EqualFold(r.Header.Get("Expect"), "100-continue") {
		_, _ = io.CopyN(io.Discard, r.Body, maxDiscardBytes)
	}
	return body, err
}

// parsePayload decodes and validates an entity JSON body.
func parsePayload(body []byte) (*payload, error) {
	p := &payload{}
	raws := map[string]json.RawMessage{}
	types := map[string]string{}
	var order []string
	collect := func(name string, raw json.RawMessage) error {
		return p.collect(name, raw, raws, types, &order)
	}
	var err error
	if startsObject(body) && json.Valid(body) {
		err = eachMember(body, collect)
	} else {
		err = decodeMembers(body, collect)
	}
	if err != nil {
		return nil, err
	}
	for _, name := range order {
		if err := p.add(name, raws[name], types[name]); err != nil {
			return nil, err
		}
	}
	for name := range types {
		if _, ok := raws[name]; !ok {
			return nil, invalidInput("A type annotation names a property the entity does not have.")
		}
	}
	return p, p.checkLimits()
}

// decodeMembers hands each member of the JSON object body to collect, in
// order, with a streaming decoder: the path of bodies that are not one
// valid JSON object, whose answer depends on how far the decoder gets.
func decodeMembers(body []byte, collect func(name string, raw json.RawMessage) error) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return invalidInput("The request body is not a JSON object.")
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return invalidInput("The request body is not valid JSON.")
		}
		name, _ := t.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return invalidInput("The request body is not valid JSON.")
		}
		if err := collect(name, raw); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return invalidInput("The request body is not valid JSON.")
	}
	if dec.More() {
		return invalidInput("The request body holds more than one JSON value.")
	}
	return nil
}

// collect sorts one JSON member into values and type annotations.
func (p *payload) collect(name string, raw json.RawMessage, raws map[string]json.RawMessage, types map[string]string, order *[]string) error {
	if strings.HasPrefix(name, "odata.") {
		return nil // odata.etag, odata.type, ... sent back by clients
	}
	if prop, ok := strings.CutSuffix(name, "@odata.type"); ok {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return invalidInput("An odata.type annotation must be a string.")
		}
		if _, dup := types[prop]; dup {
			return azerr.New(azerr.DuplicatePropertiesSpecified)
		}
		types[prop] = s
		return nil
	}
	if _, dup := raws[name]; dup {
		return azerr.New(azerr.DuplicatePropertiesSpecified)
	}
	raws[name] = raw
	*order = append(*order, name)
	return nil
}

// add types one property and files it as a key or a custom property.
func (p *payload) add(name string, raw json.RawMessage, edm string) error {
	switch name {
	case "PartitionKey", "RowKey":
		s, ok := jsonString(raw)
		if !ok || (edm != "" && edm != "Edm.String") {
			return invalidInput("The " + name + " property must be a string.")
		}
		if name == "PartitionKey" {
			p.PK = &s
		} else {
			p.RK = &s
		}
		return nil
	case "Timestamp":
		p.sawTimestamp = true // server-maintained; the client's value is ignored
		return nil
	}
	if err := checkPropertyName(name); err != nil {
		return err
	}
	v, err := typedValue(raw, edm)
	if err != nil {
		return err
	}
	p.Props = append(p.Props, Property{Name: name, Value: v})
	return nil
}

func invalidInput(msg string) *azerr.Error {
	return azerr.Newf(azerr.InvalidInput, "One of the request inputs is not valid. %s", msg)
}

// checkPropertyName applies the C#-identifier rule the service uses.
func checkPropertyName(name string) error {
	if len([]rune(name)) > maxNameChars {
		return azerr.New(azerr.PropertyNameTooLong)
	}
	if name == "" {
		return azerr.New(azerr.PropertyNameInvalid)
	}
	for i, c := range name {
		letter := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c > 0x7f && unicode.IsLetter(c))
		if !letter && (i == 0 || !(c >= '0' && c <= '9')) {
			return azerr.New(azerr.PropertyNameInvalid)
		}
	}
	return nil
}

// typedValue converts one JSON value with its optional type annotation.
func typedValue(raw json.RawMessage, edm string) (odata.Value, error) {
	if string(raw) == "null" {
		return odata.Value{Kind: odata.KindNull}, nil
	}
	if edm == "" {
		return untypedValue(raw)
	}
	kind, ok := odata.KindByEDMName(edm)
	if !ok {
		return odata.Value{}, invalidInput("Unknown type annotation " + edm + ".")
	}
	s, isString := jsonString(raw)
	bad := func() (odata.Value, error) {
		return odata.Value{}, invalidInput("The value of a property does not match its " + edm + " annotation.")
	}
	switch kind {
	case odata.KindString:
		if !isString {
			return bad()
		}
		return odata.String(s), nil
	case odata.KindBinary:
		b, err := base64.StdEncoding.DecodeString(s)
		if !isString || err != nil {
			return bad()
		}
		return odata.Binary(b), nil
	case odata.KindGuid:
		g, ok := odata.CanonicalGuid(s)
		if !isString || !ok {
			return bad()
		}
		return odata.Guid(g), nil
	case odata.KindDateTime:
		t, err := odata.ParseDateTime(s)
		if !isString || err != nil || t.Year() < 1601 {
			return bad()
		}
		return odata.DateTime(t), nil
	case odata.KindInt64:
		n, err := strconv.ParseInt(s, 10, 64)
		if !isString || err != nil {
			return bad()
		}
		return odata.Int64(n), nil
	case odata.KindInt32:
		// A JSON number, or a string holding an integer: the JavaScript
		// SDK sends {value: "32", type: "Int32"} so, and the service
		// stores it as an Int32 (Azure/Azurite issue 1259).
		text := string(raw)
		if isString {
			text = s
		}
		n, err := strconv.ParseInt(text, 10, 32)
		if err != nil {
			return bad()
		}
		return odata.Int32(int32(n)), nil
	case odata.KindDouble:
		return doubleValue(raw, s, isString)
	case odata.KindBool:
		// The strings "true" and "false" are Booleans too: the
		// JavaScript SDK sends them so, and the service takes them.
		if isString && (s == "true" || s == "false") {
			return odata.Bool(s == "true"), nil
		}
		var b bool
		if json.Unmarshal(raw, &b) != nil {
			return bad()
		}
		return odata.Bool(b), nil
	}
	return bad()
}

// doubleValue reads an Edm.Double: a JSON number, or one of the strings
// "NaN", "Infinity", "-Infinity" (or a number in a string).
func doubleValue(raw json.RawMessage, s string, isString bool) (odata.Value, error) {
	if isString {
		switch s {
		case "NaN":
			return odata.Double(math.NaN()), nil
		case "Infinity", "INF":
			return odata.Double(math.Inf(1)), nil
		case "-Infinity", "-INF":
			return odata.Double(math.Inf(-1)), nil
		}
		raw = json.RawMessage(s)
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return odata.Value{}, invalidInput("The value of a property does not match its Edm.Double annotation.")
	}
	return odata.Double(f), nil
}

// untypedValue infers the type of an unannotated value as the service does:
// strings, booleans, integers (Int32) and numbers with a fraction or
// exponent (Double).
func untypedValue(raw json.RawMessage) (odata.Value, error) {
	switch raw[0] {
	case '"':
		s, ok := jsonString(raw)
		if !ok {
			return odata.Value{}, invalidInput("Invalid string value.")
		}
		return odata.String(s), nil
	case 't':
		return odata.Bool(true), nil
	case 'f':
		return odata.Bool(false), nil
	case '{', '[':
		return odata.Value{}, invalidInput("Property values must be primitive; objects and arrays are not supported.")
	}
	text := string(raw)
	if !strings.ContainsAny(text, ".eE") {
		if n, err := strconv.ParseInt(text, 10, 32); err == nil {
			return odata.Int32(int32(n)), nil
		}
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return odata.Value{}, invalidInput("Invalid number value.")
	}
	return odata.Double(f), nil
}

// utf16Len is the length of s in UTF-16 code units, the unit the service
// sizes strings in.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if utf16.RuneLen(r) == 2 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// valueSize is the stored size of a value as the service counts it.
func valueSize(v odata.Value) int {
	switch v.Kind {
	case odata.KindString:
		return 4 + 2*utf16Len(v.Str)
	case odata.KindBinary:
		return 4 + len(v.Bytes)
	case odata.KindGuid:
		return 16
	case odata.KindBool:
		return 1
	case odata.KindInt32:
		return 4
	}
	return 8
}

// checkLimits applies the per-value and per-entity limits to the payload.
func (p *payload) checkLimits() error {
	for _, prop := range p.Props {
		switch prop.Value.Kind {
		case odata.KindString:
			if 2*utf16Len(prop.Value.Str) > maxValueBytes {
				return azerr.New(azerr.PropertyValueTooLarge)
			}
		case odata.KindBinary:
			if len(prop.Value.Bytes) > maxValueBytes {
				return azerr.New(azerr.PropertyValueTooLarge)
			}
		}
	}
	return nil
}

// checkEntity applies the whole-entity limits to the entity about to be
// stored.
func checkEntity(e *Entity) error {
	if len(e.Props)+systemProperties > maxProperties {
		return azerr.New(azerr.TooManyProperties)
	}
	size := 4 + 2*utf16Len(e.PK) + 2*utf16Len(e.RK) + 8
	for _, p := range e.Props {
		size += 8 + 2*utf16Len(p.Name) + valueSize(p.Value)
	}
	if size > maxEntityBytes {
		return azerr.New(azerr.EntityTooLarge)
	}
	return nil
}

// checkKey validates a PartitionKey or RowKey value.
func checkKey(name, k string) error {
	if 2*utf16Len(k) > maxKeyBytes {
		return azerr.Newf(azerr.OutOfRangeInput, "The '%s' parameter of value '%s' is out of range.", name, truncate(k))
	}
	for _, c := range k {
		if c == '/' || c == '\\' || c == '#' || c == '?' || c < 0x20 || (c >= 0x7f && c <= 0x9f) {
			return azerr.Newf(azerr.OutOfRangeInput, "The '%s' parameter of value '%s' is out of range.", name, truncate(k))
		}
	}
	return nil
}

func truncate(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}

// checkContentType refuses Atom/XML request bodies.
func checkContentType(r *http.Request) error {
	return checkContentTypeHeader(r.Header.Get("Content-Type"))
}

func checkContentTypeHeader(ct string) error {
	if ct == "" {
		return nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return azerr.InvalidHeader("Content-Type", ct)
	}
	switch mt {
	case "application/json":
		return nil
	case "application/atom+xml", "application/xml", "text/xml":
		return azerr.New(azerr.AtomFormatNotSupported)
	}
	return azerr.Newf(azerr.JsonFormatNotSupported, "The content type %s is not supported; send application/json.", mt)
}
