package file

import (
	"net/http"

	"github.com/lazuli-storage/lazuli/internal/frame/route"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/rule/lease"
)

// table is the File service's operations: method, level, restype, comp and
// distinguishing header. The NFS-only operations (hard and symbolic links)
// refuse SMB shares themselves, as the service does. Each row says who may call it: the letters of Azure's "Create an
// account SAS" and "Create a service SAS" pages. A share or file SAS reaches
// directories and files only, never the share's own properties.
func (s *Service) table() route.Table {
	const (
		GET = http.MethodGet
		HED = http.MethodHead
		PUT = http.MethodPut
		DEL = http.MethodDelete
		PST = http.MethodPost
	)
	return route.Table{
		// Service.
		{Op: "ListShares", Method: GET, Level: levelService, Comp: "list", Access: auth.OnService("l").NoServiceSAS(), Handle: s.listShares},
		{Op: "GetFileServiceProperties", Method: GET, Level: levelService, Restype: "service", Comp: "properties", Access: auth.OnService("r").NoServiceSAS(), Handle: s.getServiceProperties},
		{Op: "SetFileServiceProperties", Method: PUT, Level: levelService, Restype: "service", Comp: "properties", Access: auth.OnService("w").NoServiceSAS(), Handle: s.setServiceProperties},
		{Op: "GetUserDelegationKey", Method: PST, Level: levelService, Restype: "service", Comp: "userdelegationkey", Access: auth.OAuthOnly(), Handle: s.getUserDelegationKey},

		// Shares.
		{Op: "CreateShare", Method: PUT, Level: levelShare, Restype: "share", Access: auth.OnContainer("cw").NoServiceSAS(), Handle: s.createShare},
		{Op: "GetShareProperties", Method: GET, Level: levelShare, Restype: "share", Access: auth.OnContainer("r").NoServiceSAS(), Handle: s.getShareProperties},
		{Op: "GetShareProperties", Method: HED, Level: levelShare, Restype: "share", Access: auth.OnContainer("r").NoServiceSAS(), Handle: s.getShareProperties},
		{Op: "DeleteShare", Method: DEL, Level: levelShare, Restype: "share", Access: auth.OnContainer("d").NoServiceSAS(), Handle: s.deleteShare},
		{Op: "SetShareProperties", Method: PUT, Level: levelShare, Restype: "share", Comp: "properties", Access: auth.OnContainer("w").NoServiceSAS(), Handle: s.setShareProperties},
		{Op: "GetShareMetadata", Method: GET, Level: levelShare, Restype: "share", Comp: "metadata", Access: auth.OnContainer("r").NoServiceSAS(), Handle: s.getShareProperties},
		{Op: "GetShareMetadata", Method: HED, Level: levelShare, Restype: "share", Comp: "metadata", Access: auth.OnContainer("r").NoServiceSAS(), Handle: s.getShareProperties},
		{Op: "SetShareMetadata", Method: PUT, Level: levelShare, Restype: "share", Comp: "metadata", Access: auth.OnContainer("w").NoServiceSAS(), Handle: s.setShareMetadata},
		{Op: "GetShareACL", Method: GET, Level: levelShare, Restype: "share", Comp: "acl", Access: auth.AccountKeyOnly(auth.ResourceContainer), Handle: s.getShareACL},
		{Op: "GetShareACL", Method: HED, Level: levelShare, Restype: "share", Comp: "acl", Access: auth.AccountKeyOnly(auth.ResourceContainer), Handle: s.getShareACL},
		{Op: "SetShareACL", Method: PUT, Level: levelShare, Restype: "share", Comp: "acl", Access: auth.AccountKeyOnly(auth.ResourceContainer), Handle: s.setShareACL},
		{Op: "GetShareStats", Method: GET, Level: levelShare, Restype: "share", Comp: "stats", Access: auth.OnContainer("r").NoServiceSAS(), Handle: s.getShareStats},
		{Op: "SnapshotShare", Method: PUT, Level: levelShare, Restype: "share", Comp: "snapshot", Access: auth.OnContainer("cw").NoServiceSAS(), Handle: s.snapshotShare},
		// Lease actions are rows of their own: break also takes the delete
		// permission, the others write; the last row answers a missing or
		// unknown action.
		{Op: "BreakShareLease", Method: PUT, Level: levelShare, Restype: "share", Comp: "lease", When: []route.Cond{route.HeaderIs(lease.HeaderAction, lease.Break)}, Access: auth.OnContainer("wd").NoServiceSAS(), Handle: s.leaseShare},
		{Op: "AcquireShareLease", Method: PUT, Level: levelShare, Restype: "share", Comp: "lease", When: []route.Cond{route.HeaderIs(lease.HeaderAction, lease.Acquire)}, Access: auth.OnContainer("w").NoServiceSAS(), Handle: s.leaseShare},
		{Op: "RenewShareLease", Method: PUT, Level: levelShare, Restype: "share", Comp: "lease", When: []route.Cond{route.HeaderIs(lease.HeaderAction, lease.Renew)}, Access: auth.OnContainer("w").NoServiceSAS(), Handle: s.leaseShare},
		{Op: "ChangeShareLease", Method: PUT, Level: levelShare, Restype: "share", Comp: "lease", When: []route.Cond{route.HeaderIs(lease.HeaderAction, lease.Change)}, Access: auth.OnContainer("w").NoServiceSAS(), Handle: s.leaseShare},
		{Op: "ReleaseShareLease", Method: PUT, Level: levelShare, Restype: "share", Comp: "lease", When: []route.Cond{route.HeaderIs(lease.HeaderAction, lease.Release)}, Access: auth.OnContainer("w").NoServiceSAS(), Handle: s.leaseShare},
		{Op: "LeaseShare", Method: PUT, Level: levelShare, Restype: "share", Comp: "lease", Access: auth.OnContainer("w").NoServiceSAS(), Handle: s.leaseShare},
		{Op: "CreatePermission", Method: PUT, Level: levelShare, Restype: "share", Comp: "filepermission", Access: auth.OnContainer("cw").NoServiceSAS(), Handle: s.createPermission},
		{Op: "GetPermission", Method: GET, Level: levelShare, Restype: "share", Comp: "filepermission", Access: auth.OnContainer("r").NoServiceSAS(), Handle: s.getPermission},
		{Op: "RestoreShare", Method: PUT, Level: levelShare, Restype: "share", Comp: "undelete", Access: auth.OnContainer("w").NoServiceSAS(), Handle: s.restoreShare},

		// Directories (and the handle operations of the share's root).
		{Op: "CreateDirectory", Method: PUT, Level: levelDir, Restype: "directory", Access: auth.OnObject("cw"), Handle: s.createDirectory},
		{Op: "GetDirectoryProperties", Method: GET, Level: levelDir, Restype: "directory", Access: auth.OnObject("r"), Handle: s.getDirectoryProperties},
		{Op: "GetDirectoryProperties", Method: HED, Level: levelDir, Restype: "directory", Access: auth.OnObject("r"), Handle: s.getDirectoryProperties},
		{Op: "DeleteDirectory", Method: DEL, Level: levelDir, Restype: "directory", Access: auth.OnObject("d"), Handle: s.deleteDirectory},
		{Op: "SetDirectoryProperties", Method: PUT, Level: levelDir, Restype: "directory", Comp: "properties", Access: auth.OnObject("w"), Handle: s.setDirectoryProperties},
		{Op: "GetDirectoryMetadata", Method: GET, Level: levelDir, Restype: "directory", Comp: "metadata", Access: auth.OnObject("r"), Handle: s.getDirectoryProperties},
		{Op: "GetDirectoryMetadata", Method: HED, Level: levelDir, Restype: "directory", Comp: "metadata", Access: auth.OnObject("r"), Handle: s.getDirectoryProperties},
		{Op: "SetDirectoryMetadata", Method: PUT, Level: levelDir, Restype: "directory", Comp: "metadata", Access: auth.OnObject("w"), Handle: s.setDirectoryMetadata},
		{Op: "ListDirectoriesAndFiles", Method: GET, Level: levelDir, Restype: "directory", Comp: "list", Access: auth.OnContainer("l"), Handle: s.listDirectory},
		{Op: "RenameDirectory", Method: PUT, Level: levelDir, Restype: "directory", Comp: "rename", Access: auth.OnObject("w"), Handle: s.rename},
		{Op: "ListHandles", Method: GET, Level: levelDir, AnyRestype: true, Comp: "listhandles", Access: auth.OnObject("l").NoServiceSAS(), Handle: s.listHandles},
		{Op: "ForceCloseHandles", Method: PUT, Level: levelDir, AnyRestype: true, Comp: "forceclosehandles", Access: auth.OnObject("w").NoServiceSAS(), Handle: s.forceCloseHandles},

		// Files.
		{Op: "CopyFile", Method: PUT, Level: levelFile, When: []route.Cond{route.HeaderSet("x-ms-copy-source")}, Access: auth.OnObject("cw").Replacing("w"), Handle: s.copyFile},
		{Op: "CreateFile", Method: PUT, Level: levelFile, Access: auth.OnObject("cw").Replacing("w"), Handle: s.createFile},
		{Op: "GetFile", Method: GET, Level: levelFile, Access: auth.OnObject("r"), Handle: s.getFile},
		{Op: "GetFileProperties", Method: HED, Level: levelFile, Access: auth.OnObject("r"), Handle: s.getFile},
		{Op: "DeleteFile", Method: DEL, Level: levelFile, Access: auth.OnObject("d"), Handle: s.deleteFile},
		{Op: "SetFileProperties", Method: PUT, Level: levelFile, Comp: "properties", Access: auth.OnObject("w"), Handle: s.setFileProperties},
		{Op: "GetFileMetadata", Method: GET, Level: levelFile, Comp: "metadata", Access: auth.OnObject("r"), Handle: s.getFileMetadata},
		{Op: "GetFileMetadata", Method: HED, Level: levelFile, Comp: "metadata", Access: auth.OnObject("r"), Handle: s.getFileMetadata},
		{Op: "SetFileMetadata", Method: PUT, Level: levelFile, Comp: "metadata", Access: auth.OnObject("w"), Handle: s.setFileMetadata},
		{Op: "PutRangeFromURL", Method: PUT, Level: levelFile, Comp: "range", When: []route.Cond{route.HeaderSet("x-ms-copy-source")}, Access: auth.OnObject("w"), Handle: s.putRangeFromURL},
		{Op: "PutRange", Method: PUT, Level: levelFile, Comp: "range", Access: auth.OnObject("w"), Handle: s.putRange},
		{Op: "ListRanges", Method: GET, Level: levelFile, Comp: "rangelist", Access: auth.OnObject("r"), Handle: s.listRanges},
		{Op: "AbortCopyFile", Method: PUT, Level: levelFile, Comp: "copy", Access: auth.OnObject("w"), Handle: s.abortCopy},
		{Op: "BreakFileLease", Method: PUT, Level: levelFile, Comp: "lease", When: []route.Cond{route.HeaderIs(lease.HeaderAction, lease.Break)}, Access: auth.OnObject("wd"), Handle: s.leaseFile},
		{Op: "AcquireFileLease", Method: PUT, Level: levelFile, Comp: "lease", When: []route.Cond{route.HeaderIs(lease.HeaderAction, lease.Acquire)}, Access: auth.OnObject("w"), Handle: s.leaseFile},
		{Op: "ChangeFileLease", Method: PUT, Level: levelFile, Comp: "lease", When: []route.Cond{route.HeaderIs(lease.HeaderAction, lease.Change)}, Access: auth.OnObject("w"), Handle: s.leaseFile},
		{Op: "ReleaseFileLease", Method: PUT, Level: levelFile, Comp: "lease", When: []route.Cond{route.HeaderIs(lease.HeaderAction, lease.Release)}, Access: auth.OnObject("w"), Handle: s.leaseFile},
		{Op: "LeaseFile", Method: PUT, Level: levelFile, Comp: "lease", Access: auth.OnObject("w"), Handle: s.leaseFile},
		{Op: "RenameFile", Method: PUT, Level: levelFile, Comp: "rename", Access: auth.OnObject("w"), Handle: s.rename},
		{Op: "ListHandles", Method: GET, Level: levelFile, Comp: "listhandles", Access: auth.OnObject("l").NoServiceSAS(), Handle: s.listHandles},
		{Op: "ForceCloseHandles", Method: PUT, Level: levelFile, Comp: "forceclosehandles", Access: auth.OnObject("w").NoServiceSAS(), Handle: s.forceCloseHandles},
		{Op: "CreateSymbolicLink", Method: PUT, Level: levelFile, Restype: "symboliclink", Access: auth.OnObject("cw"), Handle: s.createSymbolicLink},
		{Op: "GetSymbolicLink", Method: GET, Level: levelFile, Restype: "symboliclink", Access: auth.OnObject("r"), Handle: s.getSymbolicLink},
		{Op: "CreateHardLink", Method: PUT, Level: levelFile, Restype: "hardlink", Access: auth.OnObject("cw"), Handle: s.createHardLink},
	}
}
