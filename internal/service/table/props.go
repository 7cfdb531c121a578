package table

import (
	"net/http"
	"strconv"

	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/rule/svcprops"
)

func writeXML(w http.ResponseWriter, status int, body []byte) error {
	w.Header().Set("Content-Type", "application/xml")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, err := w.Write(body)
	return err
}

func (s *Service) getProperties(w http.ResponseWriter, r *http.Request) error {
	p, err := svcprops.Get(r.Context(), s.st, request.Of(r).Account, string(auth.Table))
	if err != nil {
		return err
	}
	return writeXML(w, http.StatusOK, p.Marshal())
}

func (s *Service) setProperties(w http.ResponseWriter, r *http.Request) error {
	p, err := svcprops.Parse(r.Body)
	if err != nil {
		return err
	}
	if err := svcprops.Set(r.Context(), s.st, request.Of(r).Account, string(auth.Table), p); err != nil {
		return err
	}
	w.WriteHeader(http.StatusAccepted)
	return nil
}

// getStats answers Get Table Service Stats. Lazuli has no secondary, so
// replication is always live and in sync as of now.
func (s *Service) getStats(w http.ResponseWriter, r *http.Request) error {
	now := s.clock.Now().UTC().Format(http.TimeFormat)
	body := `<?xml version="1.0" encoding="utf-8"?><StorageServiceStats><GeoReplication><Status>live</Status><LastSyncTime>` +
		now + `</LastSyncTime></GeoReplication></StorageServiceStats>`
	return writeXML(w, http.StatusOK, []byte(body))
}
