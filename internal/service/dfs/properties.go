package dfs

import (
	"encoding/base64"
	"net/http"
	"sort"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/metadata"
)

// propertiesHeader carries a filesystem's or path's properties in the dfs
// API: "n1=base64(v1),n2=base64(v2)" (Filesystem - Create, Path - Create).
// They are the container's or blob's metadata, which the Blob API shows
// as x-ms-meta-n1: v1.
const propertiesHeader = "x-ms-properties"

const metaPrefix = "X-Ms-Meta-"

// propertiesToMeta replaces h's x-ms-properties by the x-ms-meta-*
// headers that say the same, for the Blob handler of the operation; any
// x-ms-meta-* header of the dfs request is dropped, as the dfs API has
// none. A pair that is not name=base64 is 400 InvalidHeaderValue.
func propertiesToMeta(h http.Header) error {
	raw := h.Get(propertiesHeader)
	h.Del(propertiesHeader)
	for k := range h {
		if isMeta(k) {
			delete(h, k)
		}
	}
	if strings.TrimSpace(raw) == "" {
		return nil
	}
	for _, pair := range strings.Split(raw, ",") {
		name, value, ok := strings.Cut(strings.TrimSpace(pair), "=")
		decoded, err := base64.StdEncoding.DecodeString(value)
		if !ok || name == "" || err != nil {
			return azerr.InvalidHeader(propertiesHeader, raw)
		}
		// Written under metadata.Prefix itself, the name keeps its case
		// (metadata.Parse), as Azure keeps a property's.
		h[metadata.Prefix+name] = append(h[metadata.Prefix+name], string(decoded))
	}
	return nil
}

// isMeta reports whether header key k is a metadata header, in whatever
// case it is written (the Blob handlers keep a name's case).
func isMeta(k string) bool {
	return len(k) > len(metaPrefix) && strings.EqualFold(k[:len(metaPrefix)], metaPrefix)
}

// metaToProperties replaces an answer's x-ms-meta-* headers by the
// x-ms-properties header that says the same, names in sorted order.
func metaToProperties(h http.Header) {
	var pairs []string
	for k, vs := range h {
		if !isMeta(k) {
			continue
		}
		delete(h, k)
		name := k[len(metaPrefix):]
		pairs = append(pairs, name+"="+base64.StdEncoding.EncodeToString([]byte(strings.Join(vs, ","))))
	}
	if len(pairs) > 0 {
		sort.Strings(pairs)
		h.Set(propertiesHeader, strings.Join(pairs, ","))
	}
}
