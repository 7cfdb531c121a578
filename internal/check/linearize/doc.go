// Package linearize holds the linearizability checks: concurrent histories
// recorded from real SDK clients over sockets, checked with porcupine
// against sequential models (If-Match writes of a blob, blob leases, table
// entity merges, queue get/delete, Data Lake directory renames, creates and
// listings), on one node and on two nodes sharing one PostgreSQL, and again
// with content on the S3 server LAZULI_TEST_S3 names (--extents s3://...).
// It has no code outside its tests.
package linearize
