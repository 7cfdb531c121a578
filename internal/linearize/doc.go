// Package linearize holds the linearizability checks: concurrent histories
// recorded from real SDK clients over sockets, checked with porcupine
// against sequential models, on one node and on two nodes sharing one
// PostgreSQL. It has no code outside its tests.
package linearize
