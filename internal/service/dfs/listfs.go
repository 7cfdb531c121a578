package dfs

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// logsContainer holds the account's Storage Analytics logs; listings leave
// it out, as List Containers does unless asked for system containers.
const logsContainer = "$logs"

// maxPage is the most entries one List Filesystems or List Paths answer
// holds, and the default ("Filesystem - List", "Path - List": maxResults).
const maxPage = 5000

// filesystemEntry is one filesystem of a List Filesystems answer.
type filesystemEntry struct {
	Name         string `json:"name"`
	LastModified string `json:"lastModified"`
	ETag         string `json:"etag"`
}

// listFilesystems is Filesystem - List (GET /?resource=account): the
// account's filesystems whose names start with prefix, maxResults at a
// time, the next page's start in x-ms-continuation.
func (s *Service) listFilesystems(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	limit, err := pageSize(q.Get("maxResults"))
	if err != nil {
		return err
	}
	from, err := continuationName(q.Get("continuation"))
	if err != nil {
		return err
	}
	account, prefix := request.Of(r).Account, q.Get("prefix")
	var entries []filesystemEntry
	next := ""
	err = s.store.View(r.Context(), func(tx store.Tx) error {
		prefixKey := store.NewKey(store.SpaceContainer).Str(account).Str(prefix)
		prefixKey = prefixKey[:len(prefixKey)-2]
		start := prefixKey
		if from > prefix {
			start = blobdata.ContainerKey(account, from)
		}
		var decodeErr error
		err := tx.Scan(start, store.PrefixEnd(prefixKey), store.ScanOptions{}, func(k, v []byte) bool {
			c, err := blobdata.DecodeContainer(v)
			if err != nil {
				decodeErr = err
				return false
			}
			kr := store.ReadKey(k, store.SpaceContainer)
			kr.Str()
			name := kr.Str()
			if c.Hidden() || name == logsContainer {
				return true
			}
			if len(entries) == limit {
				next = name
				return false
			}
			entries = append(entries, filesystemEntry{Name: name, LastModified: httpTime(c.ETag.Time()), ETag: c.ETagString()})
			return true
		})
		if err != nil {
			return err
		}
		return decodeErr
	})
	if err != nil {
		return err
	}
	if entries == nil {
		entries = []filesystemEntry{}
	}
	return writeJSON(w, next, struct {
		Filesystems []filesystemEntry `json:"filesystems"`
	}{entries})
}

// pageSize reads maxResults: 1 to 5000, the most when absent.
func pageSize(raw string) (int, error) {
	if raw == "" {
		return maxPage, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 {
		return 0, azerr.InvalidQuery("maxResults", raw, "")
	}
	return min(n, maxPage), nil
}

// continuationName decodes a continuation token of a listing: the name
// the next page starts at, base64-encoded (the token is opaque to
// clients; a token that does not decode is 400).
func continuationName(token string) (string, error) {
	if token == "" {
		return "", nil
	}
	b, err := base64.StdEncoding.DecodeString(token)
	if err != nil || len(b) == 0 {
		return "", azerr.InvalidQuery("continuation", token, "")
	}
	return string(b), nil
}

// continuationToken is the token of the page that starts at name.
func continuationToken(name string) string { return base64.StdEncoding.EncodeToString([]byte(name)) }

// writeJSON answers 200 with body as JSON and, when next is not "", the
// continuation token of the page that starts there.
func writeJSON(w http.ResponseWriter, next string, body any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	h := w.Header()
	if next != "" {
		h.Set("X-Ms-Continuation", continuationToken(next))
	}
	h.Set("Content-Type", "application/json;charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusOK)
	_, err = w.Write(b)
	return err
}
