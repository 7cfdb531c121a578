package queue

// PutBacklog lets the outside tests (package queue_test) store a backlog of
// messages faster than Put Message could.
var PutBacklog = putBacklog
