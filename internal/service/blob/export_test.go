package blob

import (
	"context"
	"encoding/hex"

	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/service/blobdata"
)

// aclFieldBefore7 is the container record field that held the stored
// access policies before they moved to accesspolicy's form: tag 4, its
// length, then the policies of storedContainerBefore7 in blobdata's
// records_golden_test.go (p1: start 2024-05-06T08:08:09Z, expiry
// 2024-05-06T07:08:09Z, "rl"; p2: no policy).
const aclFieldBefore7 = "0421020270310180e8beebbcf6ebcc2f0180e8f9dff6a4eacc2f02726c027032000000"

// StoreContainerACLBefore7 gives a live container without policies the
// policies field as stored before they moved to accesspolicy's form, so
// black-box tests can hold the server to containers stored then.
func StoreContainerACLBefore7(st store.Store, account, container string) error {
	field, err := hex.DecodeString(aclFieldBefore7)
	if err != nil {
		return err
	}
	key := blobdata.ContainerKey(account, container)
	return st.Update(context.Background(), func(tx store.Tx) error {
		v, err := tx.Get(key)
		if err != nil {
			return err
		}
		return tx.Put(key, append(v, field...))
	})
}
