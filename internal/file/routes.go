package file

import (
	"net/http"

	"github.com/lazuli-storage/lazuli/internal/route"
)

// table is the File service's operations: method, level, restype, comp and
// distinguishing header. NFS-only operations (hard and symbolic links) are
// not routed: Lazuli's shares are SMB shares, where the service refuses
// them too.
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
		{Op: "ListShares", Method: GET, Level: levelService, Comp: "list", Handle: s.listShares},
		{Op: "GetFileServiceProperties", Method: GET, Level: levelService, Restype: "service", Comp: "properties", Handle: s.getServiceProperties},
		{Op: "SetFileServiceProperties", Method: PUT, Level: levelService, Restype: "service", Comp: "properties", Handle: s.setServiceProperties},
		{Op: "GetUserDelegationKey", Method: PST, Level: levelService, Restype: "service", Comp: "userdelegationkey", Handle: s.getUserDelegationKey},

		// Shares.
		{Op: "CreateShare", Method: PUT, Level: levelShare, Restype: "share", Handle: s.createShare},
		{Op: "GetShareProperties", Method: GET, Level: levelShare, Restype: "share", Handle: s.getShareProperties},
		{Op: "GetShareProperties", Method: HED, Level: levelShare, Restype: "share", Handle: s.getShareProperties},
		{Op: "DeleteShare", Method: DEL, Level: levelShare, Restype: "share", Handle: s.deleteShare},
		{Op: "SetShareProperties", Method: PUT, Level: levelShare, Restype: "share", Comp: "properties", Handle: s.setShareProperties},
		{Op: "GetShareMetadata", Method: GET, Level: levelShare, Restype: "share", Comp: "metadata", Handle: s.getShareProperties},
		{Op: "GetShareMetadata", Method: HED, Level: levelShare, Restype: "share", Comp: "metadata", Handle: s.getShareProperties},
		{Op: "SetShareMetadata", Method: PUT, Level: levelShare, Restype: "share", Comp: "metadata", Handle: s.setShareMetadata},
		{Op: "GetShareACL", Method: GET, Level: levelShare, Restype: "share", Comp: "acl", Handle: s.getShareACL},
		{Op: "GetShareACL", Method: HED, Level: levelShare, Restype: "share", Comp: "acl", Handle: s.getShareACL},
		{Op: "SetShareACL", Method: PUT, Level: levelShare, Restype: "share", Comp: "acl", Handle: s.setShareACL},
		{Op: "GetShareStats", Method: GET, Level: levelShare, Restype: "share", Comp: "stats", Handle: s.getShareStats},
		{Op: "SnapshotShare", Method: PUT, Level: levelShare, Restype: "share", Comp: "snapshot", Handle: s.snapshotShare},
		{Op: "LeaseShare", Method: PUT, Level: levelShare, Restype: "share", Comp: "lease", Handle: s.leaseShare},
		{Op: "CreatePermission", Method: PUT, Level: levelShare, Restype: "share", Comp: "filepermission", Handle: s.createPermission},
		{Op: "GetPermission", Method: GET, Level: levelShare, Restype: "share", Comp: "filepermission", Handle: s.getPermission},
		{Op: "RestoreShare", Method: PUT, Level: levelShare, Restype: "share", Comp: "undelete", Handle: notImplemented("Restore Share (soft delete)")},

		// Directories (and the handle operations of the share's root).
		{Op: "CreateDirectory", Method: PUT, Level: levelDir, Restype: "directory", Handle: s.createDirectory},
		{Op: "GetDirectoryProperties", Method: GET, Level: levelDir, Restype: "directory", Handle: s.getDirectoryProperties},
		{Op: "GetDirectoryProperties", Method: HED, Level: levelDir, Restype: "directory", Handle: s.getDirectoryProperties},
		{Op: "DeleteDirectory", Method: DEL, Level: levelDir, Restype: "directory", Handle: s.deleteDirectory},
		{Op: "SetDirectoryProperties", Method: PUT, Level: levelDir, Restype: "directory", Comp: "properties", Handle: s.setDirectoryProperties},
		{Op: "GetDirectoryMetadata", Method: GET, Level: levelDir, Restype: "directory", Comp: "metadata", Handle: s.getDirectoryProperties},
		{Op: "GetDirectoryMetadata", Method: HED, Level: levelDir, Restype: "directory", Comp: "metadata", Handle: s.getDirectoryProperties},
		{Op: "SetDirectoryMetadata", Method: PUT, Level: levelDir, Restype: "directory", Comp: "metadata", Handle: s.setDirectoryMetadata},
		{Op: "ListDirectoriesAndFiles", Method: GET, Level: levelDir, Restype: "directory", Comp: "list", Handle: s.listDirectory},
		{Op: "RenameDirectory", Method: PUT, Level: levelDir, Restype: "directory", Comp: "rename", Handle: s.rename},
		{Op: "ListHandles", Method: GET, Level: levelDir, AnyRestype: true, Comp: "listhandles", Handle: s.listHandles},
		{Op: "ForceCloseHandles", Method: PUT, Level: levelDir, AnyRestype: true, Comp: "forceclosehandles", Handle: s.forceCloseHandles},

		// Files.
		{Op: "CopyFile", Method: PUT, Level: levelFile, Header: "x-ms-copy-source", Handle: s.copyFile},
		{Op: "CreateFile", Method: PUT, Level: levelFile, Handle: s.createFile},
		{Op: "GetFile", Method: GET, Level: levelFile, Handle: s.getFile},
		{Op: "GetFileProperties", Method: HED, Level: levelFile, Handle: s.getFile},
		{Op: "DeleteFile", Method: DEL, Level: levelFile, Handle: s.deleteFile},
		{Op: "SetFileProperties", Method: PUT, Level: levelFile, Comp: "properties", Handle: s.setFileProperties},
		{Op: "GetFileMetadata", Method: GET, Level: levelFile, Comp: "metadata", Handle: s.getFileMetadata},
		{Op: "GetFileMetadata", Method: HED, Level: levelFile, Comp: "metadata", Handle: s.getFileMetadata},
		{Op: "SetFileMetadata", Method: PUT, Level: levelFile, Comp: "metadata", Handle: s.setFileMetadata},
		{Op: "PutRangeFromURL", Method: PUT, Level: levelFile, Comp: "range", Header: "x-ms-copy-source", Handle: s.putRangeFromURL},
		{Op: "PutRange", Method: PUT, Level: levelFile, Comp: "range", Handle: s.putRange},
		{Op: "ListRanges", Method: GET, Level: levelFile, Comp: "rangelist", Handle: s.listRanges},
		{Op: "AbortCopyFile", Method: PUT, Level: levelFile, Comp: "copy", Handle: s.abortCopy},
		{Op: "LeaseFile", Method: PUT, Level: levelFile, Comp: "lease", Handle: s.leaseFile},
		{Op: "RenameFile", Method: PUT, Level: levelFile, Comp: "rename", Handle: s.rename},
		{Op: "ListHandles", Method: GET, Level: levelFile, Comp: "listhandles", Handle: s.listHandles},
		{Op: "ForceCloseHandles", Method: PUT, Level: levelFile, Comp: "forceclosehandles", Handle: s.forceCloseHandles},
	}
}
