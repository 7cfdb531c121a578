package file

import (
	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
	"github.com/lazuli-storage/lazuli/internal/rule/locks"
)

// checkByteLocks refuses a REST read or write of [start, end) of file n
// that an SMB client's byte-range lock covers: 409 FileLockConflict ("A
// portion of the specified file is locked by an SMB client").
func (s *Service) checkByteLocks(n *node, start, end int64, write bool) error {
	if end <= start || !s.byteLocks.Conflicts(n.ID, locks.REST, uint64(start), uint64(end-start), write) {
		return nil
	}
	return azerr.New(azerr.FileLockConflict)
}
