package main

import (
	"crypto/rand"
	"encoding/base64"
	"maps"
)

// moduleAccount is an account that one module's tests get in place of a
// shared one: in that module's environment, NameEnv and KeyEnv name it.
type moduleAccount struct {
	Module          string
	Account         testAccount
	NameEnv, KeyEnv []string
}

// moduleAccounts are the accounts a module's own test-resources.json
// deploys for it alone where the modules, run at once, would otherwise
// share one. azdatalake's Data Lake account is its own, with blob soft
// delete for seven days and container soft delete for one, as its
// test-resources.json has it: azblob's Set Blob Expiry tests create
// containers on the shared Data Lake account while
// TestListFilesystemsIncludeSystemFileSystems expects to list $logs alone.
func moduleAccounts() []moduleAccount {
	key := make([]byte, 64)
	rand.Read(key)
	return []moduleAccount{{
		Module: "azdatalake",
		Account: testAccount{Name: "lazulidfs", HNS: true, Key: base64.StdEncoding.EncodeToString(key),
			BlobSettings: "<DeleteRetentionPolicy><Enabled>true</Enabled><Days>7</Days></DeleteRetentionPolicy>" + containerSoftDelete,
			FileSettings: shareSoftDeleteDefault},
		NameEnv: []string{"DATALAKE_AZURE_STORAGE_ACCOUNT_NAME"},
		KeyEnv:  []string{"DATALAKE_AZURE_STORAGE_ACCOUNT_KEY"},
	}}
}

// moduleEnv is env with module's own accounts in place of the shared ones.
func moduleEnv(env map[string]string, own []moduleAccount, module string) map[string]string {
	out := maps.Clone(env)
	for _, ma := range own {
		if ma.Module != module {
			continue
		}
		for _, n := range ma.NameEnv {
			out[n] = ma.Account.Name
		}
		for _, k := range ma.KeyEnv {
			out[k] = ma.Account.Key
		}
	}
	return out
}
