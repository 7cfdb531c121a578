// Package abortcopy reads the request of Abort Copy Blob and Abort Copy
// File, whose form the two services share: x-ms-copy-action: abort, and
// the copy to stop named by copyid, a GUID. A copyid that is not one is
// 400 InvalidQueryParameterValue before anything is looked up (the SDKs'
// recorded TestBlobAbortCopyNoCopyStarted and TestFileAbortCopyNoCopyStarted
// send "copynotstarted" to a blob or file without a copy).
package abortcopy

import (
	"net/http"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/base/guid"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// Parse checks the copy action and returns the copy id.
func Parse(r *http.Request) (string, error) {
	switch action := r.Header.Get("X-Ms-Copy-Action"); {
	case action == "":
		return "", azerr.MissingHeader("x-ms-copy-action")
	case !strings.EqualFold(action, "abort"):
		return "", azerr.InvalidHeader("x-ms-copy-action", action)
	}
	id := r.URL.Query().Get("copyid")
	if id == "" {
		return "", azerr.New(azerr.MissingRequiredQueryParameter).With("QueryParameterName", "copyid")
	}
	if !guid.Valid(id) {
		return "", azerr.InvalidQuery("copyid", id, "The copy id must be a GUID.")
	}
	return id, nil
}
