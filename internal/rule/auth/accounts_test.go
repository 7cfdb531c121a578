package auth

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"reflect"
	"testing"
)

func TestParseAccountsEnv(t *testing.T) {
	k1 := base64.StdEncoding.EncodeToString([]byte("key-one"))
	k2 := base64.StdEncoding.EncodeToString([]byte("key-two"))
	for _, tc := range []struct {
		in      string
		names   []string
		keys    map[string][]string
		wantErr bool
	}{
		{in: "", names: []string{DevAccountName}},
		{in: "  ", names: []string{DevAccountName}},
		{in: "acc1:" + k1, names: []string{"acc1"}, keys: map[string][]string{"acc1": {"key-one"}}},
		{in: "acc1:" + k1 + ":" + k2 + ";acc2:" + k2 + ";", names: []string{"acc1", "acc2"},
			keys: map[string][]string{"acc1": {"key-one", "key-two"}, "acc2": {"key-two"}}},
		{in: " acc1 : " + k1 + " ; acc1:" + k2, names: []string{"acc1"}, keys: map[string][]string{"acc1": {"key-two"}}},
		{in: "acc1", wantErr: true},
		{in: "acc1:", wantErr: true},
		{in: ":" + k1, wantErr: true},
		{in: "acc1:not base64!", names: []string{"acc1"}, keys: map[string][]string{"acc1": {"\x9e\x8b\x5b\x6a\xc7\xba"}}},
		{in: "acc1:=", wantErr: true},
		{in: "acc1:" + k1 + ":" + k2 + ":" + k1, wantErr: true},
		{in: ";;", wantErr: true},
	} {
		got, err := ParseAccountsEnv(tc.in)
		if tc.wantErr {
			if err == nil {
				t.Errorf("%q: no error", tc.in)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if !reflect.DeepEqual(got.Names(), tc.names) {
			t.Errorf("%q: names %v, want %v", tc.in, got.Names(), tc.names)
		}
		for name, keys := range tc.keys {
			acc, ok := got.Lookup(name)
			if !ok || len(acc.Keys) != len(keys) {
				t.Errorf("%q: account %s = %+v", tc.in, name, acc)
				continue
			}
			for i, k := range keys {
				if !bytes.Equal(acc.Keys[i], []byte(k)) {
					t.Errorf("%q: %s key %d = %q, want %q", tc.in, name, i, acc.Keys[i], k)
				}
			}
		}
	}
}

func TestDevAccounts(t *testing.T) {
	a := DevAccounts()
	acc, ok := a.Lookup(DevAccountName)
	if !ok || len(acc.Keys) != 1 || len(acc.Keys[0]) != 64 {
		t.Fatalf("dev account: %+v", acc)
	}
	if _, ok := a.Lookup("devstoreaccount1-secondary"); ok {
		t.Error("Lookup matched a name it does not hold")
	}
	var none *Accounts
	if _, ok := none.Lookup(DevAccountName); ok || none.Names() != nil {
		t.Error("nil Accounts is not empty")
	}
}

// TestDecodeKeyAsAzurite checks AZURITE_ACCOUNTS keys against what Node's
// Buffer.from(key, "base64") gives, which is how Azurite decodes them
// (src/common/AccountDataStore.ts). The expected bytes were printed by
// node v20.
func TestDecodeKeyAsAzurite(t *testing.T) {
	for _, tc := range []struct{ key, hex string }{
		{"testing_key", "b5eb2d8a783f91ec"},
		{"not base64!", "9e8b5b6ac7ba"},
		{"a2V5MQ==", "6b657931"},
		{"ab=cd", "69"},
		{"YWJj ZGVm\n", "616263646566"},
		{"Zm9v-_8", "666f6ffbff"},
		{"x", ""},
		{DevAccountKey, hex.EncodeToString(mustStd(t, DevAccountKey))},
	} {
		if got := hex.EncodeToString(decodeKeyAsAzurite(tc.key)); got != tc.hex {
			t.Errorf("%q: %s, want %s", tc.key, got, tc.hex)
		}
	}
}

func mustStd(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
