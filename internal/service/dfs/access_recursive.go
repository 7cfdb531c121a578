package dfs

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/posixacl"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// maxRecursiveRecords is how many paths one setAccessControlRecursive
// request changes at most: "If omitted or greater than 2,000, the request
// will process up to 2,000 items" (Path - Update, maxRecords).
const maxRecursiveRecords = 2000

// recursiveACL is a parsed setAccessControlRecursive request: the change
// each path gets, how many paths this request takes, where it resumes and
// whether it goes on past a path the change fails on.
type recursiveACL struct {
	change     func(existing posixacl.ACL, dir bool) (posixacl.ACL, error)
	max        int
	after      string // the last path the previous request changed, "" for none
	force      bool
	continuing bool
}

// parseRecursiveACL reads ?mode= (set, modify or remove; anything else 400
// InvalidQueryParameterValue), x-ms-acl (a list of entries, or for remove
// of keys), ?maxRecords= (1 or more), ?continuation= and ?forceFlag=.
func parseRecursiveACL(r *http.Request) (recursiveACL, error) {
	var a recursiveACL
	q := r.URL.Query()
	raw := r.Header.Get(headerACL)
	if raw == "" {
		return a, azerr.MissingHeader(headerACL)
	}
	switch mode := q.Get("mode"); mode {
	case "set", "modify":
		spec, err := posixacl.ParseACL(raw)
		if err != nil {
			return a, err
		}
		a.change = func(existing posixacl.ACL, dir bool) (posixacl.ACL, error) {
			if mode == "set" {
				return posixacl.Set(spec, dir)
			}
			return posixacl.Modify(existing, spec, dir)
		}
	case "remove":
		keys, err := posixacl.ParseRemoveList(raw)
		if err != nil {
			return a, err
		}
		a.change = func(existing posixacl.ACL, dir bool) (posixacl.ACL, error) {
			return posixacl.Remove(existing, keys, dir)
		}
	default:
		return a, azerr.InvalidQuery("mode", mode, "")
	}
	a.max = maxRecursiveRecords
	if v := q.Get("maxRecords"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return a, azerr.InvalidQuery("maxRecords", v, "")
		}
		a.max = min(n, maxRecursiveRecords)
	}
	if v := q.Get("continuation"); v != "" {
		name, err := base64.RawURLEncoding.DecodeString(v)
		if err != nil {
			return a, azerr.InvalidQuery("continuation", v, "")
		}
		a.after, a.continuing = string(name), true
	}
	var err error
	a.force, err = queryBool(r, "forceFlag")
	return a, err
}

// recursiveResult is the answer's JSON body (Path - Update,
// SetAccessControlRecursiveResponse).
type recursiveResult struct {
	Directories   int           `json:"directoriesSuccessful"`
	Files         int           `json:"filesSuccessful"`
	FailureCount  int           `json:"failureCount"`
	FailedEntries []failedEntry `json:"failedEntries"`
}

type failedEntry struct {
	Message string `json:"errorMessage"`
	Name    string `json:"name"`
	Type    string `json:"type"`
}

// setAccessControlRecursive is Path - Update
// action=setAccessControlRecursive: the ACL change of ?mode= made to the
// path and, for a directory, every path below it, up to maxRecords paths
// a request, in name order; x-ms-continuation resumes it. A path the
// change fails on is a failed entry; without forceFlag=true the request
// stops at the first one.
func (s *Service) setAccessControlRecursive(w http.ResponseWriter, r *http.Request) error {
	if err := s.onlyHNS(r); err != nil {
		return err
	}
	a, err := parseRecursiveACL(r)
	if err != nil {
		return err
	}
	t := targetOf(r)
	account := request.Of(r).Account
	var result recursiveResult
	var next string
	err = s.store.Update(r.Context(), func(tx store.Tx) error {
		result, next = recursiveResult{FailedEntries: []failedEntry{}}, ""
		now := s.now()
		root, err := loadPath(tx, account, t, now)
		if err != nil {
			return err
		}
		names := []string{}
		if !a.continuing {
			names = append(names, t.Path)
		}
		if root.IsDirectory() {
			below, err := namesBelow(tx, account, t, a.after, a.max+1-len(names))
			if err != nil {
				return err
			}
			names = append(names, below...)
		}
		if len(names) > a.max {
			names, next = names[:a.max], names[a.max-1]
		}
		stopped, err := a.applyAll(tx, account, t.Filesystem, names, now, &result)
		if stopped != "" {
			next = stopped
		}
		return err
	})
	if err != nil {
		return err
	}
	if next != "" {
		w.Header().Set("X-Ms-Continuation", base64.RawURLEncoding.EncodeToString([]byte(next)))
	}
	body, err := json.Marshal(result)
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "application/json;charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, err = w.Write(body)
	return err
}

// applyAll changes the ACL of each named path, counting successes and
// failures into result. Without force it stops at the first failure and
// returns the name to resume after.
func (a recursiveACL) applyAll(tx store.Tx, account, fs string, names []string, now time.Time, result *recursiveResult) (stopped string, err error) {
	for i, name := range names {
		b, _, err := blobdata.LoadBlob(tx, account, fs, name)
		if err != nil {
			return "", err
		}
		if b == nil || !b.Committed {
			continue
		}
		dir := b.IsDirectory()
		acl, changeErr := a.change(b.Access(dir).ACL, dir)
		if changeErr != nil {
			result.FailureCount++
			result.FailedEntries = append(result.FailedEntries, failedEntry{Message: message(changeErr), Name: name, Type: resourceType(dir)})
			if !a.force && i+1 < len(names) {
				return name, nil
			}
			continue
		}
		b.Posix = b.Access(dir)
		b.Posix.ACL = acl
		touch(b, now)
		if err := blobdata.SaveBlob(tx, account, fs, name, b); err != nil {
			return "", err
		}
		if dir {
			result.Directories++
		} else {
			result.Files++
		}
	}
	return "", nil
}

// message is the text of an Azure error.
func message(err error) string {
	if e, ok := azerr.As(err); ok {
		return e.Message
	}
	return err.Error()
}

// resourceType names a path's kind as the dfs API does.
func resourceType(dir bool) string {
	if dir {
		return "DIRECTORY"
	}
	return "FILE"
}

// namesBelow returns up to limit names of the base blobs under directory
// t.Path whose names sort after after, in name order.
func namesBelow(tx store.Tx, account string, t target, after string, limit int) ([]string, error) {
	prefix := blobdata.NamePrefixKey(account, t.Filesystem, t.Path+"/")
	var names []string
	var decodeErr error
	err := tx.Scan(prefix, store.PrefixEnd(prefix), store.ScanOptions{}, func(k, _ []byte) bool {
		name, state, err := blobdata.BlobNameFromKey(k)
		if err != nil {
			decodeErr = err
			return false
		}
		if state != "" || name <= after || !strings.HasPrefix(name, t.Path+"/") {
			return true
		}
		names = append(names, name)
		return len(names) < limit
	})
	if err != nil {
		return nil, err
	}
	return names, decodeErr
}
