package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"hash"
	"sort"
	"strings"
	"sync"
)

// DevAccountName and DevAccountKey are the well-known development storage
// account every emulator ships with (UseDevelopmentStorage=true).
const (
	DevAccountName = "devstoreaccount1"
	DevAccountKey  = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)

// Account is a storage account and its decoded keys. A request signed with
// any of the keys is accepted, which is how Azure supports key rotation.
type Account struct {
	Name string
	Keys [][]byte

	// macs holds, for each of Keys in order, HMAC-SHA256 states keyed with
	// it (NewAccounts sets it): keying a new state hashes the key's inner
	// and outer pads and allocates, which every Shared Key request would
	// otherwise pay again.
	macs []*sync.Pool
}

// sum appends to out the HMAC-SHA256 of msg under Keys[i].
func (acc *Account) sum(i int, msg, out []byte) []byte {
	if i >= len(acc.macs) { // an Account that no NewAccounts prepared
		m := hmac.New(sha256.New, acc.Keys[i])
		m.Write(msg)
		return m.Sum(out)
	}
	pool := acc.macs[i]
	m := pool.Get().(hash.Hash)
	m.Reset()
	m.Write(msg)
	out = m.Sum(out)
	pool.Put(m)
	return out
}

func keyedMACs(keys [][]byte) []*sync.Pool {
	pools := make([]*sync.Pool, len(keys))
	for i, key := range keys {
		pools[i] = &sync.Pool{New: func() any { return hmac.New(sha256.New, key) }}
	}
	return pools
}

// Accounts is an immutable set of accounts, safe for concurrent use.
type Accounts struct {
	byName map[string]*Account
	names  []string
}

// NewAccounts builds a set from accounts; a later account with the same name
// replaces an earlier one.
func NewAccounts(accounts ...*Account) *Accounts {
	a := &Accounts{byName: make(map[string]*Account, len(accounts))}
	for _, acc := range accounts {
		acc.macs = keyedMACs(acc.Keys)
		a.byName[acc.Name] = acc
	}
	for name := range a.byName {
		a.names = append(a.names, name)
	}
	sort.Strings(a.names)
	return a
}

// Lookup returns the account with exactly this name.
func (a *Accounts) Lookup(name string) (*Account, bool) {
	if a == nil {
		return nil, false
	}
	acc, ok := a.byName[name]
	return acc, ok
}

// Names returns the account names in ascending order.
func (a *Accounts) Names() []string {
	if a == nil {
		return nil
	}
	return append([]string(nil), a.names...)
}

// DevAccounts returns the set holding only the development account.
func DevAccounts() *Accounts {
	key, err := base64.StdEncoding.DecodeString(DevAccountKey)
	if err != nil {
		panic("auth: the development account key constant is not base64: " + err.Error())
	}
	return NewAccounts(&Account{Name: DevAccountName, Keys: [][]byte{key}})
}

// ParseAccountsEnv parses the AZURITE_ACCOUNTS environment variable:
// "acc1:key1[:key2];acc2:key1[:key2]", keys base64-encoded. As in Azurite the
// result replaces the development account rather than adding to it (list
// devstoreaccount1 explicitly to keep it). An empty value means the default,
// the development account alone. Empty entries (a trailing ';') are ignored
// and a repeated account name takes its last definition, as Azurite does.
func ParseAccountsEnv(v string) (*Accounts, error) {
	if strings.TrimSpace(v) == "" {
		return DevAccounts(), nil
	}
	var accounts []*Account
	for _, entry := range strings.Split(v, ";") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		acc, err := parseAccountEntry(entry)
		if err != nil {
			return nil, err
		}
		accounts = append(accounts, acc)
	}
	if len(accounts) == 0 {
		return nil, fmt.Errorf("AZURITE_ACCOUNTS: no account in %q", v)
	}
	return NewAccounts(accounts...), nil
}

// parseAccountEntry parses "name:key1[:key2]".
func parseAccountEntry(entry string) (*Account, error) {
	parts := strings.Split(entry, ":")
	name := strings.TrimSpace(parts[0])
	if name == "" {
		return nil, fmt.Errorf("AZURITE_ACCOUNTS: entry %q has no account name", entry)
	}
	if len(parts) < 2 || len(parts) > 3 {
		return nil, fmt.Errorf("AZURITE_ACCOUNTS: account %q needs one or two keys (name:key1[:key2])", name)
	}
	acc := &Account{Name: name}
	for i, k := range parts[1:] {
		key := decodeKeyAsAzurite(strings.TrimSpace(k))
		if len(key) == 0 {
			return nil, fmt.Errorf("AZURITE_ACCOUNTS: key %d of account %q decodes to no bytes", i+1, name)
		}
		acc.Keys = append(acc.Keys, key)
	}
	return acc, nil
}

// decodeKeyAsAzurite decodes an AZURITE_ACCOUNTS key the way Azurite does,
// with Node's Buffer.from(key, "base64") (src/common/AccountDataStore.ts),
// so that a key Azurite's users chose, such as "testing_key", signs the
// same requests here. That decoder is forgiving: it takes the standard and
// the URL-safe alphabets alike, skips any other character, stops at the
// first '=', and decodes a last group of two or three characters to one or
// two bytes (a single leftover character is dropped).
func decodeKeyAsAzurite(s string) []byte {
	out := make([]byte, 0, len(s)*3/4)
	var acc uint32
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '=' {
			break
		}
		v, ok := nodeBase64Digit(c)
		if !ok {
			continue
		}
		acc = acc<<6 | uint32(v)
		if n++; n == 4 {
			out = append(out, byte(acc>>16), byte(acc>>8), byte(acc))
			acc, n = 0, 0
		}
	}
	switch n {
	case 2:
		out = append(out, byte(acc>>4))
	case 3:
		out = append(out, byte(acc>>10), byte(acc>>2))
	}
	return out
}

// nodeBase64Digit is a character's value in the standard or URL-safe base64
// alphabet.
func nodeBase64Digit(c byte) (byte, bool) {
	switch {
	case c >= 'A' && c <= 'Z':
		return c - 'A', true
	case c >= 'a' && c <= 'z':
		return c - 'a' + 26, true
	case c >= '0' && c <= '9':
		return c - '0' + 52, true
	case c == '+' || c == '-':
		return 62, true
	case c == '/' || c == '_':
		return 63, true
	}
	return 0, false
}
