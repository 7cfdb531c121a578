package blob

import (
	"bytes"
	"encoding/base64"
	"net/http"
	"net/url"
	"slices"

	"github.com/lazuli-storage/lazuli/internal/base/record"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// maxTagScan bounds the index entries one Find Blobs by Tags page reads.
// A page that reaches it ends early with a NextMarker, so an expression
// whose driving condition is broad costs bounded work per request and the
// listing still continues to the end.
const maxTagScan = 50_000

// Find Blobs by Tags needs the f (filter) permission: of an account SAS
// at the service level, or of a container's SAS for the container level.
// foundBlob is one match.
type foundBlob struct {
	container, name string
	tags            blobdata.TagSet
	// versionID and current are given with include=versions: the version
	// found ("" for a blob written while versioning was off) and whether
	// it is the base blob.
	versionID string
	current   bool
}

// findArgs is a parsed Find Blobs by Tags request.
type findArgs struct {
	where  whereQuery
	max    int
	marker []byte
	// versions is include=versions: previous versions are found too, by
	// the tags each one has.
	versions bool
}

// whereQuery is a Find Blobs by Tags where= expression as parseWhere
// read it: the parsed expression the scan evaluates, and the text the
// answer's <Where> repeats. The handlers take the expression only from
// here, so a request's expression is parsed once.
type whereQuery struct {
	text string
	expr *tagExpr
}

// parseWhere reads the request's where=: 400 MissingRequiredQueryParameter
// without one, 400 InvalidQueryParameterValue with the parser's message
// for a malformed one.
func parseWhere(q url.Values) (whereQuery, error) {
	raw, ok := q["where"]
	if !ok {
		return whereQuery{}, azerr.New(azerr.MissingRequiredQueryParameter).With("QueryParameterName", "where")
	}
	expr, err := parseTagQuery(raw[0], findQuery)
	if err != nil {
		return whereQuery{}, invalidWhere(raw[0], err)
	}
	return whereQuery{text: raw[0], expr: expr}, nil
}

// parseFind reads a Find Blobs by Tags request; container is the URL's
// for the container-level operation, else "". The checks answer in this
// order: a where= naming a container when the URL does, the listing
// parameters, then where= itself and the marker.
func parseFind(r *http.Request, container string) (findArgs, error) {
	var a findArgs
	q := r.URL.Query()
	where, whereErr := parseWhere(q)
	// The container is the URL's: the query cannot name one too.
	if whereErr == nil && container != "" && where.expr.keys()[containerPseudoKey] {
		return a, invalidWhere(where.text, queryRuleError("Cannot have container in both uri and query"))
	}
	p, err := parseListParams(q, map[string]bool{"versions": true, "none": true})
	if err != nil {
		return a, err
	}
	if whereErr != nil {
		return a, whereErr
	}
	a.where, a.versions, a.max = where, p.include["versions"], p.max
	if p.marker != "" {
		if a.marker, err = base64.RawURLEncoding.DecodeString(p.marker); err != nil || len(a.marker) == 0 {
			return a, azerr.InvalidQuery("marker", p.marker, "")
		}
	}
	return a, nil
}

// invalidWhere is 400 InvalidQueryParameterValue for a malformed where=,
// its message the parser's ("Error parsing query at or near character
// position ...") as the service words it.
func invalidWhere(where string, err error) error {
	e := azerr.InvalidQuery("where", where, "")
	e.Message = err.Error()
	return e
}

// findBlobsByTags is Find Blobs by Tags at the account level.
func (s *Service) findBlobsByTags(w http.ResponseWriter, r *http.Request) error {
	return s.findBlobs(w, r, "")
}

// findBlobsInContainer is Find Blobs by Tags in one container.
func (s *Service) findBlobsInContainer(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	if err := validContainerName(t.Container); err != nil {
		return err
	}
	return s.findBlobs(w, r, t.Container)
}

func (s *Service) findBlobs(w http.ResponseWriter, r *http.Request, container string) error {
	a, err := parseFind(r, container)
	if err != nil {
		return err
	}
	account := request.Of(r).Account
	var found []foundBlob
	var next []byte
	err = s.store.View(r.Context(), func(tx store.Tx) error {
		if container != "" {
			_, exists, err := blobdata.LoadContainer(tx, account, container)
			if err != nil {
				return err
			}
			if !exists {
				return containerNotFound()
			}
		}
		if a.versions {
			found, next, err = scanWithVersions(tx, account, container, a, s.now())
			return err
		}
		rng := planTagScan(account, container, a.where.expr, false)
		if found, next, err = scanTagRange(tx, rng, a.marker, a.max, a.where.expr); err != nil {
			return err
		}
		found, err = withoutExpired(tx, account, found, s.now())
		return err
	})
	if err != nil {
		return err
	}
	return writeFound(w, r, a, found, next)
}

// tagRange is the stretch of the index a query reads.
type tagRange struct {
	start, end []byte
	// containerFamily: the keys are (container, key, value, name).
	containerFamily bool
	// versions: the keys end with a version ID (tags_versions.go).
	versions bool
}

// planTagScan picks the index range for an expression: one container's
// entries when the request or an @container condition names one, then the
// entries of one key, narrowed by an equality on it or else by its range
// bounds. Every other condition is checked on each entry's tag set.
func planTagScan(account, container string, e *tagExpr, versions bool) tagRange {
	cmps := e.comparisons()
	for _, c := range cmps {
		if container == "" && c.key == containerPseudoKey {
			container = c.value
		}
	}
	key := drivingKey(cmps)
	var prefix store.Key
	switch {
	case container != "" && versions:
		prefix = blobdata.ContainerVersionTagIndexPrefix(account, container, key)
	case container != "":
		prefix = blobdata.ContainerTagIndexPrefix(account, container, key)
	case versions:
		prefix = blobdata.VersionTagIndexPrefix(account, key)
	default:
		prefix = blobdata.TagIndexPrefix(account, key)
	}
	rng := tagRange{start: prefix, end: store.PrefixEnd(prefix), containerFamily: container != "", versions: versions}
	for _, c := range cmps {
		if c.key != key {
			continue
		}
		// Clipped: each bound appends to prefix, and two bounds must not
		// share (and overwrite) its spare capacity.
		at := store.Key(slices.Clip(prefix)).Str(c.value)
		switch c.op {
		case opEq:
			rng.start, rng.end = at, store.PrefixEnd(at)
			return rng
		case opGe:
			rng.start = at
		case opGt:
			rng.start = store.PrefixEnd(at)
		case opLt:
			rng.end = at
		case opLe:
			rng.end = store.PrefixEnd(at)
		}
	}
	return rng
}

// drivingKey is the key whose entries a query reads: the first one with an
// equality, else the first tag key compared at all.
func drivingKey(cmps []*tagExpr) string {
	first := ""
	for _, c := range cmps {
		if c.key == containerPseudoKey {
			continue
		}
		if c.op == opEq {
			return c.key
		}
		if first == "" {
			first = c.key
		}
	}
	return first
}

// scanTagRange collects up to max matches of e in rng from the marker
// on, and the key to resume at when more entries remain.
func scanTagRange(tx store.Tx, rng tagRange, marker []byte, max int, e *tagExpr) ([]foundBlob, []byte, error) {
	start := rng.start
	if marker != nil && bytes.Compare(marker, start) > 0 {
		start = marker
	}
	if bytes.Compare(start, rng.end) >= 0 {
		return nil, nil, nil
	}
	var found []foundBlob
	var next []byte
	var scanErr error
	scanned := 0
	err := tx.Scan(start, rng.end, store.ScanOptions{}, func(k, v []byte) bool {
		if scanned == maxTagScan {
			next = bytes.Clone(k)
			return false
		}
		scanned++
		var f foundBlob
		var err error
		if rng.versions {
			f.container, f.name, f.versionID, err = blobdata.VersionTagEntry(k, rng.containerFamily)
		} else {
			f.container, f.name, err = tagEntryBlob(k, rng.containerFamily)
		}
		if err != nil {
			scanErr = err
			return false
		}
		d := record.NewDecoder(v)
		f.tags = blobdata.DecodeTagSet(&d)
		if d.Err() != nil {
			scanErr = d.Err()
			return false
		}
		if !e.match(f.tags, f.container) {
			return true
		}
		if len(found) == max {
			// The next page starts at this match.
			next = bytes.Clone(k)
			return false
		}
		found = append(found, f)
		return true
	})
	return found, next, firstErr(err, scanErr)
}

// tagEntryBlob reads the container and blob name of an index key.
func tagEntryBlob(k []byte, containerFamily bool) (container, name string, err error) {
	rd := store.ReadKey(k, store.SpaceBlobIndex)
	rd.Str() // account
	rd.Str() // family
	if containerFamily {
		container = rd.Str()
		rd.Str() // key
		rd.Str() // value
	} else {
		rd.Str() // key
		rd.Str() // value
		container = rd.Str()
	}
	name = rd.Str()
	return container, name, rd.Err()
}

// writeFound renders the FilterBlobSegment answer. Each blob carries the
// tags the expression names.
func writeFound(w http.ResponseWriter, r *http.Request, a findArgs, found []foundBlob, next []byte) error {
	named := a.where.expr.keys()
	x := newXMLWriter()
	x.WriteString("<EnumerationResults")
	x.Attr("ServiceEndpoint", serviceEndpoint(r))
	x.WriteString(">")
	x.Elem("Where", a.where.text)
	x.Open("Blobs")
	for _, f := range found {
		x.Open("Blob")
		x.Elem("Name", f.name)
		x.Elem("ContainerName", f.container)
		writeTagSet(x, f.tags, func(key string) bool { return named[key] })
		if f.versionID != "" {
			x.Elem("VersionId", f.versionID)
		}
		if f.current {
			x.Elem("IsCurrentVersion", "true")
		}
		x.Close("Blob")
	}
	x.Close("Blobs")
	marker := ""
	if next != nil {
		marker = base64.RawURLEncoding.EncodeToString(next)
	}
	x.Elem("NextMarker", marker)
	x.Close("EnumerationResults")
	return x.Send(w, http.StatusOK)
}
