package admin

import (
	"bytes"
	"context"
	"time"

	"github.com/lazuli-storage/lazuli/internal/engine/extent"
	"github.com/lazuli-storage/lazuli/internal/engine/store"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
	"github.com/lazuli-storage/lazuli/internal/rule/svcprops"
)

// Account data lives in the key spaces from SpaceAccount up to (not
// including) the extent spaces, each key beginning with the account name
// (store/keys.go).
const (
	firstDataSpace = store.SpaceAccount
	endDataSpace   = store.SpaceExtentRef
)

// idLen is the length of an extent ID as every engine draws it: 128 random
// bits in lower-case hexadecimal.
const idLen = 32

// Reset deletes an account's data (every account's when account is ""),
// for test isolation, in one transaction, and returns how many records
// went. Extents lose their references wholesale: any extent that no
// remaining record mentions (its ID written in hexadecimal inside a key or
// value, which is how the dump format finds references too) is queued for
// collection as freed at now.
func Reset(ctx context.Context, st store.Store, account string, now time.Time) (int, error) {
	var deleted int
	err := st.Update(ctx, func(tx store.Tx) error {
		deleted = 0
		keys, err := accountKeys(tx, account)
		if err != nil {
			return err
		}
		for _, k := range keys {
			if err := tx.Delete(k); err != nil {
				return err
			}
		}
		deleted = len(keys)
		return forgetUnmentioned(tx, now)
	})
	// Service properties went with the records.
	svcprops.Forget()
	return deleted, err
}

// accountKeys lists the keys of every record of account ("" for all).
func accountKeys(tx store.Tx, account string) ([][]byte, error) {
	var keys [][]byte
	collect := func(k, _ []byte) bool {
		keys = append(keys, bytes.Clone(k))
		return true
	}
	if account == "" {
		err := tx.Scan([]byte{byte(firstDataSpace)}, []byte{byte(endDataSpace)}, store.ScanOptions{}, collect)
		return keys, err
	}
	for space := firstDataSpace; space < endDataSpace; space++ {
		prefix := store.NewKey(space).Str(account).Bytes()
		if err := tx.Scan(prefix, store.PrefixEnd(prefix), store.ScanOptions{}, collect); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

// forgetUnmentioned drops the references of every extent no data record
// mentions any more.
func forgetUnmentioned(tx store.Tx, now time.Time) error {
	referenced := map[string]bool{}
	refStart := store.NewKey(store.SpaceExtentRef).Bytes()
	err := tx.Scan(refStart, store.PrefixEnd(refStart), store.ScanOptions{}, func(k, _ []byte) bool {
		id, ok := refID(k)
		if ok {
			referenced[id] = false
		}
		return true
	})
	if err != nil || len(referenced) == 0 {
		return err
	}
	err = tx.Scan([]byte{byte(firstDataSpace)}, []byte{byte(endDataSpace)}, store.ScanOptions{}, func(k, v []byte) bool {
		markMentions(referenced, k)
		markMentions(referenced, v)
		return true
	})
	if err != nil {
		return err
	}
	for id, mentioned := range referenced {
		if !mentioned {
			if err := extent.Forget(tx, id, now); err != nil {
				return err
			}
		}
	}
	return nil
}

// refID decodes the extent ID of a reference-count key: the space byte,
// then the ID as a tuple string (hexadecimal, so never escaped).
func refID(key []byte) (string, bool) {
	body := key[1:]
	if len(body) != idLen+2 || body[idLen] != 0x00 || body[idLen+1] != 0x01 {
		return "", false
	}
	return string(body[:idLen]), true
}

// markMentions marks every known ID found as a window of idLen hexadecimal
// digits in b.
func markMentions(ids map[string]bool, b []byte) {
	run := 0
	for i := 0; i < len(b); i++ {
		c := b[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			run = 0
			continue
		}
		run++
		if run < idLen {
			continue
		}
		window := b[i+1-idLen : i+1]
		if _, known := ids[string(window)]; known {
			ids[string(window)] = true
		}
	}
}

// ResetFresh is Reset followed by fresh for each reset account (every
// account of accounts when account is ""), which gives it back what a new
// account has, so that a reset leaves an account as new, not emptier. A
// nil fresh adds nothing.
func ResetFresh(ctx context.Context, st store.Store, accounts *auth.Accounts, account string, now time.Time,
	fresh func(ctx context.Context, account string) error) (int, error) {
	n, err := Reset(ctx, st, account, now)
	if err != nil || fresh == nil {
		return n, err
	}
	names := []string{account}
	if account == "" {
		names = accounts.Names()
	}
	for _, name := range names {
		if err := fresh(ctx, name); err != nil {
			return n, err
		}
	}
	return n, nil
}
