package posixacl

import (
	"net/http"

	"github.com/lazuli-storage/lazuli/internal/rule/azerr"
)

// Error codes the dfs endpoint answers for access control input, with the
// service's own spelling: the .NET SDK's recorded SetAccessControlAsync_Error
// and SetPermissionsAsync_Error read "InvaldAccessControlList" (sic) and
// "InvalidPermission". The catalogue of azerr serves the Blob, Queue, File
// and Table endpoints and has neither.
const (
	CodeInvalidAccessControlList = "InvaldAccessControlList"
	CodeInvalidPermission        = "InvalidPermission"
)

// invalidACL is 400 InvaldAccessControlList with the service's message.
func invalidACL() *azerr.Error {
	return &azerr.Error{
		Status:  http.StatusBadRequest,
		Code:    CodeInvalidAccessControlList,
		Message: "The access control list value is invalid.",
	}
}

// invalidPermission is 400 InvalidPermission with the service's message.
func invalidPermission() *azerr.Error {
	return &azerr.Error{
		Status:  http.StatusBadRequest,
		Code:    CodeInvalidPermission,
		Message: "The permission value is invalid.",
	}
}
