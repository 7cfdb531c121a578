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
// operations take no service SAS, as the container ones do not.
func (s *Service) table() route.Table {
	const (
		svc = route.Service
		ctr = route.Container
		GET = http.MethodGet
		HED = http.MethodHead
		PUT = http.MethodPut
		DEL = http.MethodDelete
		PAT = http.MethodPatch
	)
	filesystem := []route.Cond{route.QueryIs("resource", "filesystem")}
	t := route.Table{
		{Op: "ListFilesystems", Method: GET, Level: svc, When: []route.Cond{route.QueryIs("resource", "account")}, Access: auth.OnService("l"), Handle: s.listFilesystems},

		{Op: "CreateFilesystem", Method: PUT, Level: ctr, When: filesystem, Access: auth.OnContainer("cw").NoServiceSAS(), Handle: s.createFilesystem},
		{Op: "DeleteFilesystem", Method: DEL, Level: ctr, When: filesystem, Access: auth.OnContainer("d").NoServiceSAS(), Handle: s.deleteFilesystem},
		{Op: "GetFilesystemProperties", Method: HED, Level: ctr, When: filesystem, Access: auth.OnContainer("r").NoServiceSAS(), Handle: s.getFilesystemProperties},
		{Op: "SetFilesystemProperties", Method: PAT, Level: ctr, When: filesystem, Access: auth.OnContainer("w").NoServiceSAS(), Handle: s.setFilesystemProperties},
	}
	t = append(t, s.updateRows()...)
	return t
}
