package blob

import (
	"net/http"

	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
)

// getUserDelegationKey is Get User Delegation Key (Bearer only). The key's
// value is derived from the account key (auth.DelegationKey), so nothing is
// stored and every node verifies the SAS it signs.
func (s *Service) getUserDelegationKey(w http.ResponseWriter, r *http.Request) error {
	info := request.Of(r)
	body, err := auth.GetUserDelegationKey(s.authn.Accounts, info.Identity, auth.Blob, info.Version, r.Body, s.clock.Now())
	if err != nil {
		return err
	}
	x := &xmlWriter{}
	x.Write(body)
	return x.Send(w, http.StatusOK)
}
