package blob

import (
	"bytes"
	"net/url"
	"strconv"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// maxListResults is the most items one listing page holds.
const maxListResults = 5000

// listParams are the query parameters shared by List Containers and List
// Blobs.
type listParams struct {
	prefix, marker, delimiter string
	// startFrom is List Blobs' first name to list (inclusive) and
	// endBefore the name it stops before (exclusive); "" for none.
	startFrom, endBefore string
	// max is the page size; maxGiven whether the request set maxresults
	// (the answer echoes only parameters that were sent).
	max                                int
	prefixGiven, markerGiven, maxGiven bool
	include                            map[string]bool
	// showOnly is List Blobs' showonly= (list_showonly.go); "" for none.
	showOnly string
	// encodeNames lets names that XML cannot carry be listed percent-encoded
	// (Encoded="true"), which clients understand from version 2019-12-12.
	encodeNames bool
}

// includeContainers and includeBlobs are the include= values each listing
// accepts; values this service does not act on yet are accepted and
// ignored, so that clients asking for them still get a listing.
var (
	includeContainers = map[string]bool{"metadata": true, "deleted": true, "system": true}
	includeBlobs      = map[string]bool{"metadata": true, "uncommittedblobs": true, "snapshots": true,
		"deleted": true, "tags": true, "versions": true, "copy": true, "deletedwithversions": true,
		"immutabilitypolicy": true, "legalhold": true, "permissions": true}
)

// parseListParams reads prefix, marker, delimiter, maxresults and include.
// maxresults must be a positive integer (400 otherwise); larger than 5000
// means 5000, as the service caps it.
func parseListParams(q url.Values, allowedInclude map[string]bool) (listParams, error) {
	p := listParams{prefix: q.Get("prefix"), marker: q.Get("marker"), delimiter: q.Get("delimiter"),
		max: maxListResults, include: map[string]bool{}}
	_, p.prefixGiven = q["prefix"]
	_, p.markerGiven = q["marker"]
	if raw, ok := queryIgnoringCase(q, "maxresults"); ok {
		p.maxGiven = true
		n, err := strconv.Atoi(raw[0])
		if err != nil {
			return p, azerr.InvalidQuery("maxresults", raw[0], "")
		}
		if n <= 0 {
			return p, azerr.OutOfRangeQuery("maxresults", raw[0], 1, 2147483647)
		}
		p.max = min(n, maxListResults)
	}
	for _, raw := range q["include"] {
		for _, v := range strings.Split(raw, ",") {
			v = strings.ToLower(strings.TrimSpace(v))
			if v == "" {
				continue
			}
			if !allowedInclude[v] {
				return p, azerr.InvalidQuery("include", raw, "")
			}
			p.include[v] = true
		}
	}
	return p, nil
}

// queryIgnoringCase returns the values of a query parameter whatever the
// case of its name: azdatalake's ListDeletedPaths and ListDirectoryPaths
// send List Blobs' maxresults as maxResults, which the service takes (the
// SDK's recorded TestFilesystemListDeletedPathsWithMaxResults pages by it).
func queryIgnoringCase(q url.Values, name string) ([]string, bool) {
	if v, ok := q[name]; ok {
		return v, true
	}
	for k, v := range q {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return nil, false
}

// startName is where a listing page begins: the furthest of the marker,
// startFrom and the prefix.
func (p listParams) startName() string {
	// A blob listing's marker may be encoded (list_states.go).
	m, _ := splitMarker(p.marker)
	return max(m, p.startFrom, p.prefix)
}

// scanEnd is the key a listing's scan stops at: the end of the prefix's
// keys, or endBefore's key when that comes first (the SDK's
// TestContainerListBlobsFlatArrowStartFromEndBefore lists b and c of
// a..d with startFrom b and endBefore d).
func (p listParams) scanEnd(account, container string) []byte {
	end := store.PrefixEnd(blobdata.NamePrefixKey(account, container, p.prefix))
	if p.endBefore == "" {
		return end
	}
	if before := store.NewKey(store.SpaceBlob).Str(account).Str(container).Str(p.endBefore); bytes.Compare(before, end) < 0 {
		return before
	}
	return end
}

// writeHeader writes the echoed request parameters of an EnumerationResults.
func (p listParams) writeHeader(x *xmlWriter, withDelimiter bool) {
	if p.prefixGiven {
		x.Elem("Prefix", p.prefix)
	}
	if p.markerGiven {
		x.Elem("Marker", p.marker)
	}
	if p.maxGiven {
		x.Int("MaxResults", int64(p.max))
	}
	if withDelimiter && p.delimiter != "" {
		x.Elem("Delimiter", p.delimiter)
	}
}
