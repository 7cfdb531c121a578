package blob

import (
	"net/http"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// parseSelector reads ?snapshot= and ?versionid=; a value that is not a
// timestamp is 400 InvalidQueryParameterValue, and naming both is 400
// MutuallyExclusiveQueryParameters (azure-sdk-for-js's recorded "get
// properties of a blob version", recordings/node/blob_versioning).
func parseSelector(r *http.Request) (blobdata.Selector, error) {
	q := r.URL.Query()
	var sel blobdata.Selector
	for _, p := range []struct {
		name string
		dst  *string
	}{{"snapshot", &sel.Snapshot}, {"versionid", &sel.Version}} {
		raw, ok := q[p.name]
		if !ok {
			continue
		}
		v, valid := blobdata.ParseStamp(raw[0])
		if !valid {
			return sel, azerr.InvalidQuery(p.name, raw[0], "")
		}
		*p.dst = v
	}
	if sel.Snapshot != "" && sel.Version != "" {
		return sel, azerr.New(azerr.MutuallyExclusiveQueryParameters)
	}
	return sel, nil
}

// onlyBase refuses a request that addresses a snapshot or a version for an
// operation that writes: both are read-only.
func onlyBase(r *http.Request) error {
	sel, err := parseSelector(r)
	if err != nil || sel.Base() {
		return err
	}
	return azerr.New(azerr.InvalidOperation)
}
