package file

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/frame/request"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/sddl"
)

// permissionBody is the JSON of Create Permission and Get Permission.
type permissionBody struct {
	Permission string `json:"permission"`
	Format     string `json:"format,omitempty"`
}

// wireFormat is a format as the JSON bodies spell it.
func wireFormat(format string) string {
	if format == formatBinary {
		return "Binary"
	}
	return "Sddl"
}

func (s *Service) createPermission(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	if err := readOnlySnapshot(t); err != nil {
		return err
	}
	raw, err := request.ReadBody(r, 1<<20)
	if err != nil {
		return err
	}
	var body permissionBody
	if err := json.Unmarshal(raw, &body); err != nil || body.Permission == "" {
		return azerr.Newf(azerr.InvalidInput, "The body must be a JSON object with a non-empty \"permission\".")
	}
	format, err := parsePermFormat(body.Format)
	if err != nil {
		return azerr.Newf(azerr.InvalidInput, "Unknown permission format %q.", body.Format)
	}
	d, err := parsePermission(body.Permission, format)
	if err != nil {
		return err
	}
	var key string
	err = s.store.Update(r.Context(), func(tx store.Tx) error {
		if _, err := shareFor(tx, t); err != nil {
			return err
		}
		var err error
		key, err = storeDescriptor(tx, t.Account, t.Share, d)
		return err
	})
	if err != nil {
		return err
	}
	w.Header().Set("X-Ms-File-Permission-Key", key)
	w.WriteHeader(http.StatusCreated)
	return nil
}

func (s *Service) getPermission(w http.ResponseWriter, r *http.Request) error {
	t := targetOf(r)
	key := strings.TrimSpace(r.Header.Get("X-Ms-File-Permission-Key"))
	if key == "" {
		return azerr.MissingHeader("x-ms-file-permission-key")
	}
	want, err := parsePermFormat(r.Header.Get("X-Ms-File-Permission-Format"))
	if err != nil {
		return err
	}
	var d *sddl.Descriptor
	err = s.store.View(r.Context(), func(tx store.Tx) error {
		if _, err := shareFor(tx, t); err != nil {
			return err
		}
		var found bool
		var err error
		d, found, err = loadDescriptor(tx, t.Account, t.Share, key)
		if err == nil && !found {
			err = azerr.New(azerr.FileInvalidPermissionKey)
		}
		return err
	})
	if err != nil {
		return err
	}
	value := renderPermission(d, want)
	out, _ := json.Marshal(permissionBody{Permission: value, Format: wireFormat(want)})
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(out)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(out)
	return nil
}
