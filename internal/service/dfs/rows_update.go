package dfs

import "github.com/lazuli-storage/lazuli/internal/frame/route"

// updateRows are the rows of Path Update (append, flush, set properties,
// set access control), Get Access Control and Path Lease, appended to the
// route table (routes.go).
func (s *Service) updateRows() route.Table { return nil }
