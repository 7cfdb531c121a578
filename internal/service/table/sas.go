package table

import (
	"context"
	"net/http"
	"strings"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/accesspolicy"
	"github.com/lazuli-storage/lazuli/internal/frame/request"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// authTarget is the table a request addresses, for the authorizer.
func (s *Service) authTarget(r *http.Request, table string) auth.Target {
	return auth.Target{Service: auth.Table, Container: table,
		Policy: s.policyLookup(r.Context(), request.Of(r).Account, table)}
}

// policyLookup finds a stored access policy of the table; it is called only
// for a SAS that names one (si), so Shared Key requests never pay for it.
func (s *Service) policyLookup(ctx context.Context, account, table string) func(string) (*auth.AccessPolicy, error) {
	return func(si string) (*auth.AccessPolicy, error) {
		var out *auth.AccessPolicy
		err := s.st.View(ctx, func(tx store.Tx) error {
			rec, err := loadTable(tx, account, table)
			if err != nil {
				return err
			}
			out = accesspolicy.Find(rec.ACL, si)
			return nil
		})
		if azerr.Is(err, azerr.TableNotFound) {
			return nil, nil
		}
		return out, err
	}
}

// keyRange is the (PartitionKey, RowKey) range a table SAS grants; the zero
// value grants everything.
type keyRange struct {
	startPK, startRK, endPK, endRK string
	hasStart, hasEnd               bool
}

// sasRange returns the key range of a service SAS (spk/srk/epk/erk).
func sasRange(r *http.Request) keyRange {
	id := request.Of(r).Identity
	if id == nil || id.Kind != auth.ServiceSAS || id.SAS == nil {
		return keyRange{}
	}
	sas := id.SAS
	return keyRange{startPK: sas.StartPK, startRK: sas.StartRK, endPK: sas.EndPK, endRK: sas.EndRK,
		hasStart: sas.StartPK != "", hasEnd: sas.EndPK != ""}
}

// contains reports whether the entity key lies inside the range. Keys order
// as (PartitionKey, RowKey) tuples; a bound without its row key covers the
// whole partition.
func (k keyRange) contains(pk, rk string) bool {
	if k.hasStart {
		if c := strings.Compare(pk, k.startPK); c < 0 || (c == 0 && k.startRK != "" && rk < k.startRK) {
			return false
		}
	}
	if k.hasEnd {
		if c := strings.Compare(pk, k.endPK); c > 0 || (c == 0 && k.endRK != "" && rk > k.endRK) {
			return false
		}
	}
	return true
}

// check is the point-operation form of contains.
func (k keyRange) check(pk, rk string) error {
	if !k.contains(pk, rk) {
		return azerr.Newf(azerr.AuthorizationFailure, "This request is not authorized to perform this operation: the entity is outside the partition and row key range of the shared access signature.")
	}
	return nil
}

// scanBounds narrows [start, end) of a table scan to the range.
func (k keyRange) scanBounds(prefix store.Key, start, end []byte) ([]byte, []byte) {
	if k.hasStart {
		lo := keyWith(prefix, k.startPK)
		if k.startRK != "" {
			lo = keyWith(prefix, k.startPK, k.startRK)
		}
		if string(lo) > string(start) {
			start = lo
		}
	}
	if k.hasEnd {
		hi := keyWith(prefix, k.endPK)
		if k.endRK != "" {
			hi = keyWith(prefix, k.endPK, k.endRK)
		}
		hiEnd := store.PrefixEnd(hi)
		if end == nil || string(hiEnd) < string(end) {
			end = hiEnd
		}
	}
	return start, end
}
