package quickquery

import (
	"encoding/xml"
	"io"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// Request is a parsed Query Blob Contents body (<QueryRequest>).
type Request struct {
	Query  *Query
	Input  Input
	Output Output
}

// maxRequestBody bounds the XML body read.
const maxRequestBody = 1 << 20

type xmlRequest struct {
	XMLName    xml.Name      `xml:"QueryRequest"`
	QueryType  string        `xml:"QueryType"`
	Expression *string       `xml:"Expression"`
	Input      *xmlSerialize `xml:"InputSerialization"`
	Output     *xmlSerialize `xml:"OutputSerialization"`
}

type xmlSerialize struct {
	Format struct {
		Type      string   `xml:"Type"`
		Delimited *xmlCSV  `xml:"DelimitedTextConfiguration"`
		JSON      *xmlJSON `xml:"JsonTextConfiguration"`
		Arrow     *struct {
			Fields []struct {
				Type      string `xml:"Type"`
				Name      string `xml:"Name"`
				Precision *int   `xml:"Precision"`
				Scale     *int   `xml:"Scale"`
			} `xml:"Schema>Field"`
		} `xml:"ArrowConfiguration"`
	} `xml:"Format"`
}

type xmlCSV struct {
	ColumnSeparator *string `xml:"ColumnSeparator"`
	FieldQuote      *string `xml:"FieldQuote"`
	RecordSeparator *string `xml:"RecordSeparator"`
	EscapeChar      *string `xml:"EscapeChar"`
	HasHeaders      *bool   `xml:"HasHeaders"`
}

type xmlJSON struct {
	RecordSeparator *string `xml:"RecordSeparator"`
}

// ParseRequest reads a <QueryRequest>. A body that is not the schema's XML
// is 400 InvalidXmlDocument; a value the schema does not allow is 400
// InvalidXmlNodeValue; a query the language does not accept is 400
// InvalidInput naming where it stopped.
func ParseRequest(body io.Reader) (*Request, error) {
	raw, err := io.ReadAll(io.LimitReader(body, maxRequestBody+1))
	if err != nil {
		return nil, err
	}
	if len(raw) > maxRequestBody {
		return nil, azerr.New(azerr.RequestBodyTooLarge)
	}
	var x xmlRequest
	if err := xml.Unmarshal(raw, &x); err != nil || x.Expression == nil {
		return nil, azerr.New(azerr.InvalidXmlDocument)
	}
	if !strings.EqualFold(x.QueryType, "SQL") {
		return nil, invalidNode("QueryType")
	}
	req := &Request{Input: Input{CSV: DefaultCSV, Sep: "\n"}, Output: Output{CSV: DefaultCSV, Sep: "\n"}}
	if x.Input != nil && strings.EqualFold(x.Input.Format.Type, "parquet") {
		req.Input.Parquet = true
	} else if err := applyFormat(x.Input, &req.Input.JSON, &req.Input.CSV, &req.Input.Sep, nil); err != nil {
		return nil, err
	}
	if err := applyFormat(x.Output, &req.Output.JSON, &req.Output.CSV, &req.Output.Sep, &req.Output.Arrow); err != nil {
		return nil, err
	}
	q, err := Parse(*x.Expression)
	if err != nil {
		return nil, azerr.Newf(azerr.InvalidInput, "The query expression is not valid: %v.", err)
	}
	req.Query = q
	return req, nil
}

// applyFormat reads one serialization element; absent means delimited
// text with the defaults. arrow is nil for the input, which cannot be
// Arrow, and the output's Arrow schema otherwise.
func applyFormat(s *xmlSerialize, isJSON *bool, csv *CSV, sep *string, arrow *[]ArrowField) error {
	input := arrow == nil
	if s == nil {
		return nil
	}
	switch strings.ToLower(s.Format.Type) {
	case "delimited":
		return applyCSV(s.Format.Delimited, csv)
	case "json":
		*isJSON = true
		if s.Format.JSON != nil && s.Format.JSON.RecordSeparator != nil && *s.Format.JSON.RecordSeparator != "" {
			*sep = *s.Format.JSON.RecordSeparator
		}
		return nil
	case "arrow":
		if !input {
			return applyArrow(s, arrow)
		}
	}
	return invalidNode("Type")
}

// applyArrow reads an ArrowConfiguration: at least one field, each of a
// known type; a decimal has a precision of 1 to 38 digits and a scale of
// 0 to its precision.
func applyArrow(s *xmlSerialize, arrow *[]ArrowField) error {
	if s.Format.Arrow == nil || len(s.Format.Arrow.Fields) == 0 {
		return invalidNode("Schema")
	}
	for _, x := range s.Format.Arrow.Fields {
		t, ok := arrowTypeOf(strings.TrimSpace(x.Type))
		if !ok {
			return invalidNode("Type")
		}
		f := ArrowField{Name: x.Name, Type: t}
		if t == ArrowDecimal {
			if x.Precision == nil || *x.Precision < 1 || *x.Precision > maxDecimalPrecision {
				return invalidNode("Precision")
			}
			f.Precision = *x.Precision
			if x.Scale != nil {
				f.Scale = *x.Scale
			}
			if f.Scale < 0 || f.Scale > f.Precision {
				return invalidNode("Scale")
			}
		}
		*arrow = append(*arrow, f)
	}
	return nil
}

// invalidNode is 400 InvalidXmlNodeValue naming the element.
func invalidNode(name string) error {
	return azerr.New(azerr.InvalidXmlNodeValue).With("XmlNodeName", name)
}

func applyCSV(x *xmlCSV, csv *CSV) error {
	if x == nil {
		return nil
	}
	single := func(name string, v *string, dst *string, optional bool) error {
		if v == nil {
			return nil
		}
		if len(*v) > 1 || (*v == "" && !optional) {
			return invalidNode(name)
		}
		*dst = *v
		return nil
	}
	if err := single("ColumnSeparator", x.ColumnSeparator, &csv.ColumnSeparator, false); err != nil {
		return err
	}
	if err := single("FieldQuote", x.FieldQuote, &csv.FieldQuote, true); err != nil {
		return err
	}
	if err := single("EscapeChar", x.EscapeChar, &csv.EscapeChar, true); err != nil {
		return err
	}
	// An empty separator keeps the default newline: XML serializers drop
	// whitespace-only text, so the JavaScript SDK's "\n" arrives as
	// <RecordSeparator></RecordSeparator>.
	if x.RecordSeparator != nil && *x.RecordSeparator != "" {
		if len(*x.RecordSeparator) > 2 {
			return invalidNode("RecordSeparator")
		}
		csv.RecordSeparator = *x.RecordSeparator
	}
	if x.HasHeaders != nil {
		csv.HasHeaders = *x.HasHeaders
	}
	return nil
}
