// Package cluster holds the scale-out tests: two Lazuli nodes started in
// the test process over one PostgreSQL database and schema, each with its
// own listeners and connection pools, and Azure SDK clients spread across
// both. They check that the concurrency model holds across nodes exactly as
// it holds on one: optimistic concurrency with ETags, leases, queue
// deliveries and pop receipts, table If-Match and batch atomicity, file
// ranges, file leases and racing directory creates.
//
// Nothing in a node may keep state that another node needs: every rule is
// evaluated inside the store's serializable transaction from stored
// records and instants. The nodes share one fake clock, as servers share
// real time (leases and visibility expire on every node alike).
//
// Two further passes of the test binary run the cross-node tests again:
// with content on S3 (TestClusterWithContentOnS3), and with each node a
// process alone in a network namespace of its own, reaching PostgreSQL
// and S3 on the host across a veth pair (TestClusterInNetworkNamespaces,
// as root).
//
// The package has no code besides these tests. It needs PostgreSQL: the
// tests use the server named by LAZULI_TEST_POSTGRES or start a throwaway
// one (see internal/engine/store/postgres/pgtest), and skip when none can start.
package cluster
