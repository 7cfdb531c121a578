package file

import (
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/frame/liveness"
)

// forgetDeadOpens drops from n the SMB opens held by nodes that stopped
// renewing their liveness (package liveness): their process, and with it
// the client's handle, is gone, so the share-mode rule, List Handles and
// delete-pending no longer see them. When no live open is left, a
// delete-pending flag goes with them: as when a Windows server goes down,
// the pending delete dies with the opens and the file stays. The record
// is cleaned in storage only when the caller saves n (lazily, entry by
// entry as operations touch them, one liveness read per node). A nil live
// judges every node alive.
func forgetDeadOpens(tx store.Tx, live *liveness.Registry, n *node) error {
	return forgetOpensOf(n, func(node uint64) (bool, error) { return live.Alive(tx, node) })
}

// forgetOpensOf is forgetDeadOpens with the nodes judged by alive (a
// liveness Snapshot inside a Scan).
func forgetOpensOf(n *node, alive func(node uint64) (bool, error)) error {
	if n == nil || len(n.Opens) == 0 {
		return nil
	}
	judged := map[uint64]bool{}
	kept := n.Opens[:0:0]
	for _, o := range n.Opens {
		ok, seen := judged[o.Node]
		if !seen {
			var err error
			if ok, err = alive(o.Node); err != nil {
				return err
			}
			judged[o.Node] = ok
		}
		if ok {
			kept = append(kept, o)
		}
	}
	if len(kept) == len(n.Opens) {
		return nil
	}
	n.Opens = kept
	if len(kept) == 0 {
		n.DeletePending = false
	}
	return nil
}
