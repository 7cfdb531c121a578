package dfs

import (
	"net/http"

	"github.com/lazuli-storage/lazuli/internal/frame/route"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
)

// updateRows are the rows of Path Update (append, flush, set properties,
// set access control), Get Access Control and Path Lease, appended to the
// route table (routes.go). Their service SAS letters are those of "Create
// a service SAS" for a blob or directory: a (add) or w (write) to append,
// w to flush and set properties, p (permissions) to set permissions and
// ACLs, o (ownership) besides to set the owner or owning group, e
// (execute) to read the ACL; a lease takes w, and its break w or d, as
// Lease Blob's rows do. An account SAS, which has no e or o and whose p
// is Process, reads the ACL with r and changes it with w (routes.go).
func (s *Service) updateRows() route.Table {
	const (
		obj = route.Object
		PAT = http.MethodPatch
		HED = http.MethodHead
		PUT = http.MethodPut
		PST = http.MethodPost
	)
	update := func(action string, more ...route.Cond) []route.Cond {
		return append([]route.Cond{route.QueryIs("action", action)}, more...)
	}
	rows := route.Table{
		{Op: "AppendData", Method: PAT, Level: obj, When: update("append"), Access: auth.OnObject("aw"), Handle: s.appendData},
		{Op: "FlushData", Method: PAT, Level: obj, When: update("flush"), Access: auth.OnObject("w"), Handle: s.flushData},
		{Op: "SetPathProperties", Method: PAT, Level: obj, When: update("setProperties"), Access: auth.OnObject("w"), Handle: s.setPathProperties},
		{Op: "SetAccessControlRecursive", Method: PAT, Level: obj, When: update("setAccessControlRecursive"), Access: auth.OnObject("p").ForAccountSAS("w"), Handle: s.setAccessControlRecursive},
		// Reading a path's owners, bits and ACL takes e ("Create a service
		// SAS") or r: azdatalake's live TestFileGetAccessControlWithSAS and
		// TestDirGetAccessControlWithSAS read them with a racwd SAS, and
		// the live answer is followed where the page names e alone.
		{Op: "GetAccessControl", Method: HED, Level: obj, When: update("getAccessControl"), Access: auth.OnObject("re").ForAccountSAS("r"), Handle: s.getAccessControl},
		{Op: "GetAccessControl", Method: HED, Level: route.Container, When: update("getAccessControl"), Access: auth.OnContainer("re").ForAccountSAS("r"), Handle: s.getRootAccessControl},
	}
	rows = append(rows, setAccessRows(obj, auth.OnObject, s.setAccessControl)...)
	rows = append(rows, setAccessRows(route.Container, auth.OnContainer, s.setRootAccessControl)...)

	// Path - Lease is a POST in DataLakeStorage.json; a PUT without comp
	// carrying x-ms-lease-action is served the same.
	for _, method := range []string{PST, PUT} {
		rows = append(rows,
			route.Rule{Op: "BreakPathLease", Method: method, Level: obj, When: []route.Cond{route.HeaderIs(lease.HeaderAction, lease.Break)}, Access: auth.OnObject("wd"), Handle: s.pathLease},
			route.Rule{Op: "LeasePath", Method: method, Level: obj, When: []route.Cond{route.HeaderSet(lease.HeaderAction)}, Access: auth.OnObject("w"), Handle: s.pathLease})
	}
	return rows
}

// setAccessRows are setAccessControl's rows at level (a path, or the
// filesystem's root): an owner or group change needs o, bits or an ACL
// p, both when the request makes both (the rows with more conditions come
// first); an account SAS needs w for each.
func setAccessRows(level route.Level, on func(string) *auth.Need, handle route.Handler) route.Table {
	need := func(perm string) *auth.Need { return on(perm).ForAccountSAS("w") }
	update := func(more ...route.Cond) []route.Cond {
		return append([]route.Cond{route.QueryIs("action", "setAccessControl")}, more...)
	}
	var rows route.Table
	for _, owners := range []string{headerOwner, headerGroup} {
		for _, bits := range []string{headerPermissions, headerACL} {
			rows = append(rows, route.Rule{Op: "SetAccessControl", Method: http.MethodPatch, Level: level, When: update(route.HeaderSet(owners), route.HeaderSet(bits)),
				Access: need("o").And("p"), Handle: handle})
		}
	}
	for _, owners := range []string{headerOwner, headerGroup} {
		rows = append(rows, route.Rule{Op: "SetAccessControl", Method: http.MethodPatch, Level: level, When: update(route.HeaderSet(owners)),
			Access: need("o"), Handle: handle})
	}
	return append(rows, route.Rule{Op: "SetAccessControl", Method: http.MethodPatch, Level: level, When: update(), Access: need("p"), Handle: handle})
}
