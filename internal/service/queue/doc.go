// Package queue is Lazuli's Azure Queue service: list queues, service
// properties and statistics; create, delete, metadata and ACL of queues; and
// put, get, peek, update, delete and clear of messages, with the real
// service's status codes, error codes and limits.
//
// # Model
//
// A queue is one record in store.SpaceQueue keyed (account, queue) holding its
// metadata and signed identifiers.
//
// A message is one record in store.SpaceMsgIndex keyed
//
//	(account, queue, visibleAt, seq, id)
//
// where visibleAt is the instant (Unix ns) the message next becomes visible,
// seq an insertion sequence that keeps messages of equal visibility in the
// order they were put, and id the 16 bytes of the message GUID. The record is
// at once the message and its visibility index: there is no separate index
// entry that could disagree with it, and a Get Messages that hides a message
// rewrites exactly one record (delete the old key, put the new one) in the
// same transaction that found it.
//
// Get Messages scans that range from the start up to "now" with a limit, so it
// costs in proportion to the messages it returns (plus any expired ones it
// meets at the head, which it deletes in passing, at most expiredBound per
// transaction), never in proportion to the queue's length. Because the scan
// and the move run in one serializable store.Update, two consumers can never
// receive the same visible message.
//
// Expired messages stay in that range until something deletes them, so a
// backlog of them can lie ahead of a visible, unexpired message, which Peek
// and Get must still return (Azure REST "Peek Messages", "Get Messages").
// Peek skips them within its one read-only snapshot; Get, whose write
// transactions stay bounded, skips the rest of a backlog in a read-only
// snapshot and resumes its bounded Update at the first unexpired message.
// Skipping costs one read per expired message; the reaper (reaper.go) is
// asked to delete the backlog so that later requests do not pay it again.
//
// # Pop receipts
//
// A pop receipt encodes the message's current key position (visibleAt, seq)
// and a random nonce kept in the record. Delete and Update Message read the
// key the receipt names directly (one Get), then compare the nonce: a receipt
// that is not in that format is 400 InvalidQueryParameterValue, a well-formed
// receipt that names no message or an older delivery is 404 MessageNotFound.
// Every delivery and every update moves the message and draws a new nonce, so
// a receipt is valid exactly until the next delivery or update, as in Azure.
//
// # Time
//
// Visibility and expiry are computed from stored instants and the injected
// clock at request time. Expired messages are never returned; they are
// deleted when a Get meets them, when a Peek that met them triggers a purge,
// or by the reaper in the background.
package queue
