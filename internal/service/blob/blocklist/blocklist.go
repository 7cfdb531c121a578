// Package blocklist reads the <BlockList> body of Put Block List and writes
// the <BlockList> body of Get Block List, and validates block IDs.
//
// A block ID is a Base64 string whose decoded form is at most 64 bytes; all
// blocks of one blob use IDs of the same length. IDs are kept decoded (the
// bytes the client encoded) so that equal IDs compare equal whatever
// padding-free variations a client might send, and are re-encoded with
// standard Base64 on output, as the service returns them.
package blocklist

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"io"

	"github.com/lazuli-storage/lazuli/internal/base/xmlw"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// MaxIDLen is the longest decoded block ID.
const MaxIDLen = 64

// MaxBlocks is the most blocks a block list (and a committed blob) may have.
const MaxBlocks = 50000

// MaxBodyBytes bounds a Put Block List body: 50,000 entries of the longest
// ID in the longest element name, with room for whitespace.
const MaxBodyBytes = 8 << 20

// Kind says which list a Put Block List entry takes its block from.
type Kind uint8

// The block list element names.
const (
	Committed Kind = iota + 1
	Uncommitted
	Latest
)

// Entry is one element of a Put Block List body.
type Entry struct {
	Kind Kind
	ID   string // decoded block ID bytes
}

// ErrBadID reports a block ID that is not Base64 or is too long.
var ErrBadID = errors.New("blocklist: invalid block id")

// DecodeID decodes a Base64 block ID and checks its length.
func DecodeID(s string) (string, error) {
	if s == "" {
		return "", ErrBadID
	}
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(raw) == 0 || len(raw) > MaxIDLen {
		return "", ErrBadID
	}
	return string(raw), nil
}

// EncodeID renders a decoded block ID as the service returns it.
func EncodeID(id string) string {
	return base64.StdEncoding.EncodeToString([]byte(id))
}

// Parse reads a Put Block List body. Malformed XML (or a root other than
// BlockList) is 400 InvalidXmlDocument; an invalid ID or IDs of different
// lengths 400 InvalidBlockList; more than MaxBlocks entries 400
// BlockListTooLong.
func Parse(r io.Reader) ([]Entry, error) {
	body, err := io.ReadAll(io.LimitReader(r, MaxBodyBytes+1))
	if err != nil {
		return nil, err
	}
	if len(body) > MaxBodyBytes {
		return nil, azerr.New(azerr.BlockListTooLong)
	}
	dec := xml.NewDecoder(bytes.NewReader(body))
	if err := expectRoot(dec); err != nil {
		return nil, err
	}
	var entries []Entry
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil, azerr.New(azerr.InvalidXmlDocument)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			e, err := readEntry(dec, t)
			if err != nil {
				return nil, err
			}
			if len(entries) == MaxBlocks {
				return nil, azerr.New(azerr.BlockListTooLong)
			}
			if len(entries) > 0 && len(entries[0].ID) != len(e.ID) {
				return nil, azerr.Newf(azerr.InvalidBlockList, "The specified block list is invalid: block IDs of one blob must all have the same length.")
			}
			entries = append(entries, e)
		case xml.EndElement:
			return entries, trailing(dec)
		}
	}
}

// expectRoot skips the prolog and checks the root element is BlockList.
func expectRoot(dec *xml.Decoder) error {
	for {
		tok, err := dec.Token()
		if err != nil {
			return azerr.New(azerr.InvalidXmlDocument)
		}
		if start, ok := tok.(xml.StartElement); ok {
			if start.Name.Local != "BlockList" {
				return azerr.New(azerr.InvalidXmlDocument)
			}
			return nil
		}
	}
}

// readEntry reads one <Committed|Uncommitted|Latest>id</…> element.
func readEntry(dec *xml.Decoder, start xml.StartElement) (Entry, error) {
	var kind Kind
	switch start.Name.Local {
	case "Committed":
		kind = Committed
	case "Uncommitted":
		kind = Uncommitted
	case "Latest":
		kind = Latest
	default:
		return Entry{}, azerr.New(azerr.InvalidXmlDocument)
	}
	var text string
	if err := dec.DecodeElement(&text, &start); err != nil {
		return Entry{}, azerr.New(azerr.InvalidXmlDocument)
	}
	id, err := DecodeID(string(bytes.TrimSpace([]byte(text))))
	if err != nil {
		return Entry{}, azerr.New(azerr.InvalidBlockList)
	}
	return Entry{Kind: kind, ID: id}, nil
}

// trailing accepts only whitespace, comments and processing instructions
// after the root element.
func trailing(dec *xml.Decoder) error {
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return azerr.New(azerr.InvalidXmlDocument)
		}
		switch t := tok.(type) {
		case xml.CharData:
			if len(bytes.TrimSpace(t)) != 0 {
				return azerr.New(azerr.InvalidXmlDocument)
			}
		case xml.Comment, xml.ProcInst:
		default:
			return azerr.New(azerr.InvalidXmlDocument)
		}
	}
}

// Block is one block of a Get Block List answer.
type Block struct {
	ID   string // decoded
	Size int64
}

// Write renders a Get Block List body. A nil list is omitted (the
// blocklisttype did not ask for it); an empty one is rendered empty.
func Write(committed, uncommitted []Block, withCommitted, withUncommitted bool) *xmlw.Writer {
	x := xmlw.New(xmlw.DeclLine, xmlw.Standard)
	x.Open("BlockList")
	if withCommitted {
		writeBlocks(x, "CommittedBlocks", committed)
	}
	if withUncommitted {
		writeBlocks(x, "UncommittedBlocks", uncommitted)
	}
	x.Close("BlockList")
	return x
}

func writeBlocks(x *xmlw.Writer, element string, blocks []Block) {
	x.Open(element)
	for _, b := range blocks {
		x.Open("Block")
		x.Elem("Name", EncodeID(b.ID))
		x.Int("Size", b.Size)
		x.Close("Block")
	}
	x.Close(element)
}
