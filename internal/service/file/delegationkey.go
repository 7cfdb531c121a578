package file

import (
	"net/http"
	"strconv"

	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
)

// getUserDelegationKey is Get User Delegation Key on the File service
// (Bearer only; from version 2025-07-05 a key signs share and file SAS).
func (s *Service) getUserDelegationKey(w http.ResponseWriter, r *http.Request) error {
	info := request.Of(r)
	body, err := auth.GetUserDelegationKey(s.accounts, info.Identity, auth.File, info.Version, r.Body, s.clock.Now())
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "application/xml")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	_, err = w.Write(body)
	return err
}
