// Package postgres is the store engine for PostgreSQL: every Lazuli node
// points at one database and sees the same records, which is how Lazuli
// scales out.
//
// # Model
//
// The sorted map is one table, kv(k bytea PRIMARY KEY, v bytea NOT NULL).
// bytea compares bytewise, exactly like the store's tuple-encoded keys, so a
// Scan is an index range scan ordered by k. Open creates the table (or
// migrates it, see package pgschema) in Options.Schema, so several stores can
// share one database.
//
// # Isolation
//
// Update runs in a SERIALIZABLE transaction. PostgreSQL's serializable
// snapshot isolation guarantees that the committed transactions have the
// effect of some one-at-a-time order, which is exactly the store contract:
// a compare-and-swap (Get, check, Put) can never lose an update, including
// when the key was absent and two writers insert it, because the read's
// predicate lock makes one of them fail. REPEATABLE READ would not be enough:
// it allows write skew between Updates that read one key and write another
// (a blob and its index, a queue message and its visibility entry).
//
// View runs in a READ ONLY REPEATABLE READ transaction: every statement sees
// the snapshot taken at its first statement, which holds every Update
// committed before the View began and nothing of one still in flight. It
// takes no locks, so it never blocks writers and never fails with a
// serialization error. It is a snapshot of committed state, as the contract
// asks, not a point in the serial order: in PostgreSQL's "read-only anomaly"
// a View may see Update B (committed) without Update A that is serialized
// before B but commits after it. Nothing in the store contract orders
// Updates that are concurrent, so no caller can tell.
//
// # Writes
//
// Put and Delete do not each cost a round trip: an Update's writes wait in
// the Tx and go to the database together, a multi-row DELETE and a
// multi-row INSERT ... ON CONFLICT in one round trip, before a Scan reads,
// before COMMIT and every few thousand records (pending.go says exactly
// when). The writes of a transaction that rewrites a 100,000-path
// directory take a few dozen round trips, not 200,000, and Update still
// returns only after the database committed every one.
//
// # Retry
//
// A serializable transaction that would break the serial order fails with
// SQLSTATE 40001 (serialization_failure), and two writers locking rows in
// opposite orders with 40P01 (deadlock_detected). Update rolls back and runs
// the closure again, after a jittered exponential backoff so that colliding
// writers spread out, up to maxAttempts times and never past the context's
// deadline. The failure is recognised whether it reaches Update from sending
// the writes or Commit, from the closure's return value, or only inside the Tx (a closure that
// turns a Get error into its own error still gets retried), since the Tx
// remembers the first database error it saw. Errors the closure makes up
// itself end the Update at once and are returned unchanged.
//
// Retrying is not enough where many Updates rewrite the same records at
// once: sixteen consumers of one queue, half on each of two nodes, each
// lose most rounds, and one can lose forty in a row. Updates marked with
// store.InTurn therefore wait for their turn, on a mutex of this process and
// then on an advisory lock taken before BEGIN, and run one at a time
// (turn.go).
//
// # Durability
//
// Update returns after COMMIT, which with PostgreSQL's default
// synchronous_commit = on means the commit record is flushed to the server's
// WAL. A server configured with synchronous_commit = off (or fsync = off)
// does not give the durability the store contract promises.
package postgres
