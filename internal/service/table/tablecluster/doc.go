// Package tablecluster holds the Table service's scale-out test of the
// query cache: two Lazuli nodes over one PostgreSQL database, each with its
// own in-process cache of decoded partitions, where every write made
// through one node must show in the next query through the other.
//
// The package has no code besides the test. It needs PostgreSQL: the test
// uses the server named by LAZULI_TEST_POSTGRES or starts a throwaway one
// (see internal/engine/store/postgres/pgtest), and skips when none can start.
package tablecluster
