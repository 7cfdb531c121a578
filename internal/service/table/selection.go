package table

import (
	"strings"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// selection is a parsed $select: the property names to return. A nil
// selection returns every property.
type selection struct {
	names []string
	set   map[string]bool
}

// parseSelect reads a $select list; "" and "*" select everything.
func parseSelect(s string) (*selection, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "*" {
		return nil, nil
	}
	sel := &selection{set: map[string]bool{}}
	for _, part := range strings.Split(s, ",") {
		name := strings.TrimSpace(part)
		if name == "*" {
			return nil, nil
		}
		if name == "" || checkPropertyName(name) != nil {
			return nil, azerr.Newf(azerr.InvalidInput, "One of the request inputs is not valid. Invalid $select property '%s'.", name)
		}
		if !sel.set[name] {
			sel.set[name] = true
			sel.names = append(sel.names, name)
		}
	}
	return sel, nil
}

func (s *selection) has(name string) bool { return s == nil || s.set[name] }

// missing lists the selected custom properties e does not have; the service
// returns them as null.
func (s *selection) missing(e *Entity) []string {
	var out []string
	for _, name := range s.names {
		switch name {
		case "PartitionKey", "RowKey", "Timestamp":
			continue
		}
		if _, ok := e.Property(name); !ok {
			out = append(out, name)
		}
	}
	return out
}
