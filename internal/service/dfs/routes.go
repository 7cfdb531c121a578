package dfs

import (
	"net/http"

	"github.com/lazuli-storage/lazuli/internal/frame/route"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
)

// table is the dfs API's operations (DataLakeStorage.json), each with who
// may call it: the letters of "Create a service SAS" and "Create an
// account SAS", where a filesystem is a container and a path a blob. The
// dfs permissions beyond Blob's are m (move: the source of a rename), e
// (execute), o (ownership) and p (permissions); the account's filesystem
// operations take no service SAS, as the container ones do not. An
// account SAS has none of m, e and o, and its p is Process: the rows
// that ask for them give an account SAS's letters (ForAccountSAS) of
// Blob's kind, r to read and w to write, and d for the source a rename
// removes.
func (s *Service) table() route.Table {
	const (
		svc = route.Service
		ctr = route.Container
		obj = route.Object
		GET = http.MethodGet
		HED = http.MethodHead
		PUT = http.MethodPut
		DEL = http.MethodDelete
		PAT = http.MethodPatch
	)
	filesystem := []route.Cond{route.QueryIs("resource", "filesystem")}
	// A path's creation may replace one: c or w, and w to replace
	// (decided by Put Blob in its transaction), as Put Blob's row says.
	create := auth.OnObject("cw").Replacing("w")
	t := route.Table{
		{Op: "ListFilesystems", Method: GET, Level: svc, When: []route.Cond{route.QueryIs("resource", "account")}, Access: auth.OnService("l"), Handle: s.listFilesystems},

		{Op: "CreateFilesystem", Method: PUT, Level: ctr, When: filesystem, Access: auth.OnContainer("cw").NoServiceSAS(), Handle: s.createFilesystem},
		{Op: "DeleteFilesystem", Method: DEL, Level: ctr, When: filesystem, Access: auth.OnContainer("d").NoServiceSAS(), Handle: s.deleteFilesystem},
		{Op: "GetFilesystemProperties", Method: HED, Level: ctr, When: filesystem, Access: auth.OnContainer("r").NoServiceSAS(), Handle: s.getFilesystemProperties},
		{Op: "SetFilesystemProperties", Method: PAT, Level: ctr, When: filesystem, Access: auth.OnContainer("w").NoServiceSAS(), Handle: s.setFilesystemProperties},
		{Op: "ListPaths", Method: GET, Level: ctr, When: filesystem, Access: auth.OnContainer("l"), Handle: s.listPaths},

		// Path - Create is a rename when it names a source, which moves
		// (m) the source and writes the destination; the mode is checked
		// by the handler. An account SAS writes (w) and deletes (d), on
		// each end: the Python SDK's live test_rename_file_with_account_sas
		// renames with an account SAS of r, w, d and c on objects.
		{Op: "RenamePath", Method: PUT, Level: obj, When: []route.Cond{route.HeaderSet(renameSourceHeader)},
			Access: auth.OnObject("m").ForAccountSAS("w", "d"), Handle: s.renamePath},
		{Op: "CreateFile", Method: PUT, Level: obj, When: []route.Cond{route.QueryIs("resource", "file")}, Access: create, Handle: s.createPath},
		{Op: "CreateDirectory", Method: PUT, Level: obj, When: []route.Cond{route.QueryIs("resource", "directory")}, Access: create, Handle: s.createPath},
		// Path - Undelete restores a soft-deleted path: write (w), as
		// Undelete Blob's row says.
		{Op: "UndeletePath", Method: PUT, Level: obj, Comp: "undelete", When: []route.Cond{route.HeaderSet(undeleteSourceHeader)}, Access: auth.OnObject("w"), Handle: s.undeletePath},
		{Op: "DeletePath", Method: DEL, Level: obj, Access: auth.OnObject("d"), Handle: s.deletePath},
		// getStatus reads the system properties: read (r) or execute (e);
		// an account SAS reads (r).
		{Op: "GetPathStatus", Method: HED, Level: obj, When: []route.Cond{route.QueryIs("action", "getStatus")},
			Access: auth.OnObject("re").ForAccountSAS("r"), Handle: s.getPathStatus},
	}
	t = append(t, s.updateRows()...)
	return t
}
