//go:build sdkbench

package bench

// sdkSetups gives each scenario its SDK version; this file is built only
// with the sdkbench tag, so the server binary leaves the SDK out.
func init() {
	sdkSetups = map[string]setupFunc{
		"queue-put":           sdkQueuePut,
		"queue-get-delete":    sdkQueueGetDelete,
		"file-write-1m":       sdkFileWrite,
		"file-read-1m":        sdkFileRead,
		"blob-put-1k":         sdkPutBlobs(kib),
		"blob-get-1k":         sdkGetBlobs(kib),
		"blob-put-1m":         sdkPutBlobs(mib),
		"blob-get-1m":         sdkGetBlobs(mib),
		"blob-upload-256m":    sdkUpload256,
		"blob-download-256m":  sdkDownload256,
		"cond-update":         sdkCondUpdate,
		"lease-cycle":         sdkLeaseCycle,
		"list-blobs":          sdkListBlobs,
		"table-insert":        sdkTableInsert,
		"table-point-get":     sdkTablePointGet,
		"table-merge-ifmatch": sdkTableMergeIfMatch,
		"table-query":         sdkTableQuery,
		"table-batch-100":     sdkTableBatch,
	}
	// The backlog is built and consumed by the lean client either way:
	// only the measured operations go through the SDK.
	sdkSetups["blob-put-1k-expiring"] = withExpiringBacklog(sdkPutBlobs(kib))
	sdkResponseStatus = azcoreStatus
}
