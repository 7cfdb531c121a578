package config

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestParseDefaults(t *testing.T) {
	c, err := Parse(nil, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.Blob.Addr() != "127.0.0.1:10000" || c.Queue.Port != 10001 || c.Table.Port != 10002 || c.File.Port != 10003 {
		t.Errorf("ports: %+v", c)
	}
	if c.StoreURL() != "sqlite:lazuli-data/lazuli.db" {
		t.Errorf("store url %q", c.StoreURL())
	}
	if names := c.Accounts.Names(); len(names) != 1 || names[0] != "devstoreaccount1" {
		t.Errorf("accounts %v", names)
	}
}

func TestParseAzuriteFlags(t *testing.T) {
	args := []string{"--blobHost", "0.0.0.0", "--blobPort", "0", "-l", "/tmp/x", "-L", "-s", "-d", "/tmp/debug.log",
		"--skipApiVersionCheck", "--disableTelemetry", "--queuePort", "20001", "--inMemoryPersistence"}
	c, err := Parse(args, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.Blob.Addr() != "0.0.0.0:0" || c.Location != "/tmp/x" || !c.Loose || !c.Silent || c.DebugLog != "/tmp/debug.log" ||
		!c.SkipAPIVersionCheck || c.Queue.Port != 20001 || !c.InMemory || c.StoreURL() != "memory:" {
		t.Errorf("parsed %+v", c)
	}
}

// TestParseBodyRate: the minimum request-body rate defaults to 1,024 B/s
// after 30 s, and 0 turns it off.
func TestParseBodyRate(t *testing.T) {
	c, err := Parse(nil, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.MinBodyRate != 1024 || c.BodyRateGrace != 30*time.Second {
		t.Errorf("defaults: %d B/s after %v", c.MinBodyRate, c.BodyRateGrace)
	}
	c, err = Parse([]string{"--minBodyRate", "4096", "--minBodyRateGrace", "5s"}, func(string) string { return "" }, io.Discard)
	if err != nil || c.MinBodyRate != 4096 || c.BodyRateGrace != 5*time.Second {
		t.Errorf("--minBodyRate 4096 --minBodyRateGrace 5s: %d B/s after %v (%v)", c.MinBodyRate, c.BodyRateGrace, err)
	}
	c, err = Parse([]string{"--minBodyRate", "0"}, func(string) string { return "" }, io.Discard)
	if err != nil || c.MinBodyRate != 0 {
		t.Errorf("--minBodyRate 0: %d (%v)", c.MinBodyRate, err)
	}
}

func TestParseAccountsEnv(t *testing.T) {
	env := map[string]string{"AZURITE_ACCOUNTS": "acc1:a2V5MQ==:a2V5Mg==;acc2:a2V5Mw=="}
	c, err := Parse(nil, func(k string) string { return env[k] }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Accounts.Lookup("devstoreaccount1"); ok {
		t.Error("AZURITE_ACCOUNTS must replace the dev account")
	}
	if a, ok := c.Accounts.Lookup("acc1"); !ok || len(a.Keys) != 2 {
		t.Errorf("acc1: %+v", a)
	}
}

func TestParseErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--blobPort", "x"},
		{"--cert", "c.pem"},
		{"--services", "blob,nope"},
		{"--oauth", "bearer"},
		{"--logFormat", "xml"},
		{"--adminPort", "x"},
		{"--minBodyRate", "-1"},
		{"--minBodyRate", "1k"},
		{"--minBodyRateGrace", "-5s"},
		{"--oauth", "basic"}, // OAuth needs HTTPS
		{"--oauthKeys", "keys.pem"},
		{"--cert", "c.pem", "--key", "k.pem", "--oauthKeys", "/nonexistent/keys.pem"},
		{"--dataOwners", "a1"}, // names principals only --oauth accepts
		{"--cert", "c.pem", "--key", "k.pem", "--oauth", "basic", "--dataOwners", ","},
		{"--cert", "c.pem", "--key", "k.pem", "--oauth", "basic", "--dataOwners", "a1,*"},
		{"stray"},
	} {
		if _, err := Parse(args, func(string) string { return "" }, io.Discard); err == nil {
			t.Errorf("%v: want an error", args)
		}
	}
}

func TestParseOAuth(t *testing.T) {
	tls := []string{"--cert", "c.pem", "--key", "k.pem"}
	c, err := Parse(append(tls, "--oauth", "basic"), func(string) string { return "" }, io.Discard)
	if err != nil || c.OAuth == nil || c.OAuth.Keys != nil {
		t.Fatalf("--oauth basic: %+v, %v", c, err)
	}
	keys := filepath.Join(t.TempDir(), "keys.json")
	jwks := `{"keys":[{"kty":"EC","crv":"P-256","x":"MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4","y":"4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM"}]}`
	if err := os.WriteFile(keys, []byte(jwks), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err = Parse(append(tls, "--oauthKeys", keys), func(string) string { return "" }, io.Discard)
	if err != nil || c.OAuth == nil || c.OAuth.Keys == nil {
		t.Fatalf("--oauthKeys: %+v, %v", c, err)
	}
	if c, _ := Parse(nil, func(string) string { return "" }, io.Discard); c.OAuth != nil {
		t.Fatal("OAuth on by default")
	}
}

// TestParseDataOwners: without --dataOwners every principal holds the
// role, as before the flag; with a list only those named, in any case.
func TestParseDataOwners(t *testing.T) {
	tls := []string{"--cert", "c.pem", "--key", "k.pem", "--oauth", "basic"}
	c, err := Parse(tls, func(string) string { return "" }, io.Discard)
	if err != nil || !c.OAuth.DataOwners.Holds("anyone") {
		t.Fatalf("default: %v, holds anyone %v", err, err == nil && c.OAuth.DataOwners.Holds("anyone"))
	}
	c, err = Parse(append(tls, "--dataOwners", " A1 ,b2"), func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]bool{"a1": true, "B2": true, "c3": false, "": false} {
		if got := c.OAuth.DataOwners.Holds(id); got != want {
			t.Errorf("Holds(%q) = %v, want %v", id, got, want)
		}
	}
}

func TestAdminFlags(t *testing.T) {
	c, err := Parse(nil, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.Admin.Addr() != "127.0.0.1:10009" || c.NoAdmin || c.AdminToken != "" || c.LogFormat != "text" {
		t.Errorf("defaults: %+v %v %q %q", c.Admin, c.NoAdmin, c.AdminToken, c.LogFormat)
	}
	env := func(k string) string {
		if k == "LAZULI_ADMIN_TOKEN" {
			return "from-env"
		}
		return ""
	}
	c, err = Parse([]string{"--adminHost", "0.0.0.0", "--adminPort", "0", "--noAdmin", "--logFormat", "json"}, env, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.Admin.Addr() != "0.0.0.0:0" || !c.NoAdmin || c.AdminToken != "from-env" || c.LogFormat != "json" {
		t.Errorf("flags: %+v %v %q %q", c.Admin, c.NoAdmin, c.AdminToken, c.LogFormat)
	}
	c, _ = Parse([]string{"--adminToken", "flag"}, env, io.Discard)
	if c.AdminToken != "flag" {
		t.Errorf("--adminToken %q, want the flag over the environment", c.AdminToken)
	}
}

// --extents names where content lives; without it, content follows the
// store.
func TestParseExtents(t *testing.T) {
	url := "s3://bucket/lazuli?endpoint=127.0.0.1:8333&secure=false"
	c, err := Parse([]string{"--extents", url}, func(string) string { return "" }, io.Discard)
	if err != nil || c.Extents != url {
		t.Fatalf("--extents %s: %q (%v)", url, c.Extents, err)
	}
	c, err = Parse(nil, func(string) string { return "" }, io.Discard)
	if err != nil || c.Extents != "" {
		t.Fatalf("default extents %q (%v), want none", c.Extents, err)
	}
}
