package dfs

// SetDeletePage makes Path - Delete remove at most n paths a request
// until the returned function restores the page size, so that a test
// pages a small directory.
func SetDeletePage(n int) (restore func()) {
	old := deletePage
	deletePage = n
	return func() { deletePage = old }
}
