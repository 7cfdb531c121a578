// Package dfs is Lazuli's Data Lake Storage Gen2 REST API (the dfs
// endpoint): filesystems, paths, listing, rename and delete over the Blob
// service's records, where a filesystem is a container and a path is a
// blob, so that both APIs see one namespace, as on Azure.
//
// Dispatch. The SDKs send dfs requests to the Blob port for IP-style URLs
// (127.0.0.1:10000/devstoreaccount1) and to <account>.dfs.<domain> hosts,
// which Lazuli serves on the same port. Endpoint is the Blob endpoint's
// service: it hands a request to this package when IsRequest says it is a
// dfs operation and to the Blob service otherwise (dispatch.go). Path Read
// and a plain HEAD are Blob operations there too, as the SDKs send them.
//
// Errors. dfs operations answer errors in the dfs JSON form
// ({"error":{"code":...,"message":...}}, azerr.DataLake), with the dfs
// codes where the service names things differently (FilesystemNotFound
// for ContainerNotFound, PathNotFound for BlobNotFound; errors.go).
//
// Authorization. Each route row declares the SAS letters of its operation
// (routes.go); a caller with no credentials is 401 whatever the
// filesystem's public access (service.go), and a rename's source is
// authorized by the SAS its x-ms-rename-source carries
// (rename_source_auth.go).
//
// Directories. A directory is a zero-length block blob whose metadata
// says hdi_isfolder=true, as Azure shows directories through the Blob API.
// On a hierarchical-namespace account (--hnsAccounts) a path's missing
// parents are created with it, and a directory's rename or delete moves or
// removes every path under it (blobdata paths*.go).
//
// Part of the API is served by the Blob handlers on a rewritten request
// (filesystem create, delete and properties are container operations),
// the rest here over package blobdata in one store transaction each.
package dfs
