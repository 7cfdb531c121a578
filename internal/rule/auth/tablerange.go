package auth

import "github.com/lazuli-storage/lazuli/internal/rule/azerr"

// TableRange is the entity key range a table service SAS grants: from
// (StartPK, StartRK) to (EndPK, EndRK), both inclusive, compared as
// (PartitionKey, RowKey) pairs. An empty bound is open.
type TableRange struct {
	StartPK, StartRK, EndPK, EndRK string
}

// TableRange returns the entity range of a table SAS (spk, srk, epk, erk).
func (s *SAS) TableRange() TableRange {
	return TableRange{StartPK: s.StartPK, StartRK: s.StartRK, EndPK: s.EndPK, EndRK: s.EndRK}
}

// IsZero reports whether the range is unbounded.
func (r TableRange) IsZero() bool { return r == TableRange{} }

// Contains reports whether the entity (pk, rk) lies inside the range.
func (r TableRange) Contains(pk, rk string) bool {
	if r.StartPK != "" && (pk < r.StartPK || pk == r.StartPK && rk < r.StartRK) {
		return false
	}
	if r.EndPK != "" && (pk > r.EndPK || pk == r.EndPK && r.EndRK != "" && rk > r.EndRK) {
		return false
	}
	return true
}

// AuthorizeEntity checks that a table service SAS covers the entity (pk, rk);
// other identities pass. The table service calls it for every entity an
// operation reads or writes (a query restricts its scan to the range
// instead). Outside the range it is 403 AuthorizationFailure.
func (id *Identity) AuthorizeEntity(pk, rk string) error {
	if id.Kind != ServiceSAS || id.SAS.TableRange().Contains(pk, rk) {
		return nil
	}
	return azerr.Newf(azerr.AuthorizationFailure, "This request is not authorized to perform this operation: the entity is outside the PartitionKey and RowKey range of the shared access signature.")
}
