package queue

import (
	"net/http"

	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
)

// getUserDelegationKey is Get User Delegation Key on the Queue service
// (Bearer only; from version 2025-07-05 a key signs queue SAS too).
func (s *Service) getUserDelegationKey(w http.ResponseWriter, r *http.Request, _ target) error {
	info := request.Of(r)
	body, err := auth.GetUserDelegationKey(s.accounts, info.Identity, auth.Queue, info.Version, r.Body, s.clock.Now())
	if err != nil {
		return err
	}
	return writeXML(w, r, http.StatusOK, body)
}
