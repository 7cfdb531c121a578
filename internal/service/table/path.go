package table

import (
	"net/url"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/frame/route"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// Resource levels of the Table service's URL space.
const (
	levelService  route.Level = iota // "/" with restype=service
	levelTables                      // /Tables
	levelTable                       // /Tables('name')
	levelTableRes                    // /name: ACL, insert
	levelEntities                    // /name()
	levelEntity                      // /name(PartitionKey='..',RowKey='..')
	levelBatch                       // /$batch
)

// target is what a request path addresses.
type target struct {
	level route.Level
	table string // as written in the path
	pk    string
	rk    string
}

// parseTarget reads the decoded path after the account.
func parseTarget(path string) (target, error) {
	path = strings.TrimPrefix(path, "/")
	path = strings.TrimSuffix(path, "/")
	switch {
	case path == "":
		return target{level: levelService}, nil
	case path == "$batch":
		return target{level: levelBatch}, nil
	case strings.Contains(path, "/"):
		return target{}, azerr.New(azerr.InvalidUri)
	}
	name, args, hasArgs := strings.Cut(path, "(")
	if hasArgs {
		var ok bool
		if args, ok = strings.CutSuffix(args, ")"); !ok {
			return target{}, azerr.New(azerr.InvalidUri)
		}
	}
	if strings.EqualFold(name, "Tables") {
		return tablesTarget(args, hasArgs)
	}
	if name == "" {
		return target{}, azerr.New(azerr.InvalidUri)
	}
	switch {
	case !hasArgs:
		return target{level: levelTableRes, table: name}, nil
	case strings.TrimSpace(args) == "":
		return target{level: levelEntities, table: name}, nil
	}
	pk, rk, err := parseKeyArgs(args)
	if err != nil {
		return target{}, err
	}
	return target{level: levelEntity, table: name, pk: pk, rk: rk}, nil
}

// tablesTarget handles /Tables, /Tables() and /Tables('name').
func tablesTarget(args string, hasArgs bool) (target, error) {
	args = strings.TrimSpace(args)
	if !hasArgs || args == "" {
		return target{level: levelTables}, nil
	}
	name, rest, err := quoted(args)
	if err != nil || strings.TrimSpace(rest) != "" {
		// Tables(TableName='x') is the long form of Tables('x').
		k, v, ok := strings.Cut(args, "=")
		if !ok || strings.TrimSpace(k) != "TableName" {
			return target{}, azerr.New(azerr.InvalidUri)
		}
		if name, rest, err = quoted(strings.TrimSpace(v)); err != nil || strings.TrimSpace(rest) != "" {
			return target{}, azerr.New(azerr.InvalidUri)
		}
	}
	return target{level: levelTable, table: name}, nil
}

// parseKeyArgs reads PartitionKey='..',RowKey='..' in either order.
func parseKeyArgs(args string) (pk, rk string, err error) {
	var havePK, haveRK bool
	rest := strings.TrimSpace(args)
	for rest != "" {
		name, after, ok := strings.Cut(rest, "=")
		if !ok {
			return "", "", azerr.New(azerr.InvalidUri)
		}
		val, tail, qerr := quoted(strings.TrimSpace(after))
		if qerr != nil {
			return "", "", qerr
		}
		switch strings.TrimSpace(name) {
		case "PartitionKey":
			pk, havePK = val, true
		case "RowKey":
			rk, haveRK = val, true
		default:
			return "", "", azerr.New(azerr.InvalidUri)
		}
		tail = strings.TrimSpace(tail)
		if tail == "" {
			break
		}
		if rest, ok = strings.CutPrefix(tail, ","); !ok {
			return "", "", azerr.New(azerr.InvalidUri)
		}
		rest = strings.TrimSpace(rest)
	}
	if !havePK || !haveRK {
		return "", "", azerr.New(azerr.InvalidUri)
	}
	return pk, rk, nil
}

// quoted reads a leading '...' string with ” escapes and returns the rest.
func quoted(s string) (val, rest string, err error) {
	if !strings.HasPrefix(s, "'") {
		return "", "", azerr.New(azerr.InvalidUri)
	}
	var sb strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] != '\'' {
			sb.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == '\'' {
			sb.WriteByte('\'')
			i++
			continue
		}
		return sb.String(), s[i+1:], nil
	}
	return "", "", azerr.New(azerr.InvalidUri)
}

func pathEscape(s string) string { return url.PathEscape(s) }
