package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/lazuli-storage/lazuli/internal/rule/auth"
)

// testAccount is one of the storage accounts the SDKs' test-resources
// templates deploy, made a Lazuli account; Env names the variables that
// hand its name and key to the tests.
type testAccount struct {
	// Premium accounts are Lazuli's --premiumAccounts: page blob tiers
	// P4 to P80, NFS shares.
	Premium bool
	// HNS accounts are Lazuli's --hnsAccounts: a hierarchical namespace,
	// which Set Blob Expiry needs.
	HNS          bool
	Name         string
	Key          string
	NameEnv      []string
	KeyEnv       []string
	BlobSettings string // Set Blob Service Properties body elements
	// TaggedFixture gives the account a blob tagged "azure"='blob' before
	// the tests run (fixture.go).
	TaggedFixture bool
	FileSettings  string // Set File Service Properties body elements
}

// Lazuli's extensions of Set Blob Service Properties for what Azure sets
// in the management plane.
const (
	versioning          = "<IsVersioningEnabled>true</IsVersioningEnabled>"
	containerSoftDelete = "<ContainerDeleteRetentionPolicy><Enabled>true</Enabled><Days>1</Days></ContainerDeleteRetentionPolicy>"
)

// shareSoftDeleteDefault is share soft delete as Azure turns it on (7
// days) for every new account; azfile's restore tests on the primary
// account rely on it.
const shareSoftDeleteDefault = "<ShareDeleteRetentionPolicy><Enabled>true</Enabled><Days>7</Days></ShareDeleteRetentionPolicy>"

// newTestAccounts returns the accounts with fresh random keys. The
// settings follow azblob's and azfile's test-resources.json: versioning
// on the primary, immutable and soft-delete accounts; blob soft delete
// (one day, permanent delete allowed) and share soft delete on the
// soft-delete account; container soft delete (one day) on the soft-delete
// and Data Lake accounts. Azure sets these through the management plane;
// Lazuli takes them through Set Service Properties (versioning and
// container soft delete are its extensions).
func newTestAccounts() []testAccount {
	accounts := []testAccount{
		{Name: "lazuliprimary", NameEnv: []string{"AZURE_STORAGE_ACCOUNT_NAME", "TABLES_STORAGE_ACCOUNT_NAME"},
			KeyEnv: []string{"AZURE_STORAGE_ACCOUNT_KEY", "TABLES_PRIMARY_STORAGE_ACCOUNT_KEY"}, BlobSettings: versioning,
			TaggedFixture: true},
		{Name: "lazulisecondary", NameEnv: []string{"SECONDARY_AZURE_STORAGE_ACCOUNT_NAME"}, KeyEnv: []string{"SECONDARY_AZURE_STORAGE_ACCOUNT_KEY"}},
		{Name: "lazulipremium", Premium: true, NameEnv: []string{"PREMIUM_AZURE_STORAGE_ACCOUNT_NAME"}, KeyEnv: []string{"PREMIUM_AZURE_STORAGE_ACCOUNT_KEY"}},
		{Name: "lazulipremiumfile", Premium: true, NameEnv: []string{"PREMIUM_FILE_STORAGE_ACCOUNT_NAME"}, KeyEnv: []string{"PREMIUM_FILE_STORAGE_ACCOUNT_KEY"}},
		{Name: "lazulisoftdelete", NameEnv: []string{"SOFT_DELETE_AZURE_STORAGE_ACCOUNT_NAME"}, KeyEnv: []string{"SOFT_DELETE_AZURE_STORAGE_ACCOUNT_KEY"},
			BlobSettings: "<DeleteRetentionPolicy><Enabled>true</Enabled><Days>1</Days><AllowPermanentDelete>true</AllowPermanentDelete></DeleteRetentionPolicy>" +
				versioning + containerSoftDelete,
			FileSettings: "<ShareDeleteRetentionPolicy><Enabled>true</Enabled><Days>1</Days></ShareDeleteRetentionPolicy>"},
		{Name: "lazulidatalake", HNS: true, NameEnv: []string{"DATALAKE_AZURE_STORAGE_ACCOUNT_NAME"}, KeyEnv: []string{"DATALAKE_AZURE_STORAGE_ACCOUNT_KEY"},
			BlobSettings: containerSoftDelete},
		{Name: "lazuliimmutable", NameEnv: []string{"IMMUTABLE_AZURE_STORAGE_ACCOUNT_NAME"}, KeyEnv: []string{"IMMUTABLE_AZURE_STORAGE_ACCOUNT_KEY"}, BlobSettings: versioning},
		{Name: "lazulicosmos", NameEnv: []string{"TABLES_COSMOS_ACCOUNT_NAME"}, KeyEnv: []string{"TABLES_PRIMARY_COSMOS_ACCOUNT_KEY"}},
	}
	for i := range accounts {
		if accounts[i].FileSettings == "" {
			accounts[i].FileSettings = shareSoftDeleteDefault
		}
		key := make([]byte, 64)
		rand.Read(key)
		accounts[i].Key = base64.StdEncoding.EncodeToString(key)
	}
	return accounts
}

// encryptionScope is the scope azblob's test-resources.json creates on the
// primary account (AZURE_STORAGE_ENCRYPTION_SCOPE); Lazuli gives every
// account the scopes --encryptionScopes names.
const encryptionScope = "lazuliscope"

// dataLakeEncryptionScope is the scope azdatalake's tests name: its
// filesystem tests set it as a default scope by this literal name
// (testcommon.TestEncryptionScope), its SAS tests read it from
// DATALAKE_AZURE_STORAGE_ENCRYPTION_SCOPE.
const dataLakeEncryptionScope = "datalaketestencryptionscope"

// accountsWhere is the comma-separated names of the accounts that are of a
// kind: the value of --premiumAccounts or --hnsAccounts.
func accountsWhere(accounts []testAccount, kind func(testAccount) bool) string {
	var names []string
	for _, a := range accounts {
		if kind(a) {
			names = append(names, a.Name)
		}
	}
	return strings.Join(names, ",")
}

// azuriteAccounts is the AZURITE_ACCOUNTS value that creates them.
func azuriteAccounts(accounts []testAccount) string {
	var parts []string
	for _, a := range accounts {
		parts = append(parts, a.Name+":"+a.Key)
	}
	return strings.Join(parts, ";")
}

// accountEnv is the tests' view of the accounts.
func accountEnv(accounts []testAccount) map[string]string {
	env := map[string]string{}
	for _, a := range accounts {
		for _, n := range a.NameEnv {
			env[n] = a.Name
		}
		for _, k := range a.KeyEnv {
			env[k] = a.Key
		}
	}
	return env
}

// proxiedClient reaches Lazuli as the tests do: through the proxy, by the
// accounts' Azure host names, trusting the run's test CA.
func proxiedClient(proxyURL, caFile string) (*http.Client, error) {
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, err
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s holds no certificate", caFile)
	}
	proxy, err := url.Parse(proxyURL)
	if err != nil {
		return nil, err
	}
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		Proxy:           http.ProxyURL(proxy),
		TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12},
	}}, nil
}

// configureAccounts applies each account's service settings, which also
// proves that the proxy, the certificate and Lazuli's host-name accounts
// work before any SDK test runs.
func configureAccounts(client *http.Client, accounts []testAccount) error {
	for _, a := range accounts {
		settings := map[auth.Service]string{auth.Blob: a.BlobSettings, auth.File: a.FileSettings}
		for svc, body := range settings {
			if body == "" {
				continue
			}
			if err := setServiceProperties(client, a, svc, "<StorageServiceProperties>"+body+"</StorageServiceProperties>"); err != nil {
				return err
			}
		}
		if a.TaggedFixture {
			if err := putTaggedFixture(client, a); err != nil {
				return err
			}
		}
		// Every account answers Get Service Properties on every service.
		for _, svc := range []auth.Service{auth.Blob, auth.Queue, auth.File} {
			if err := getServiceProperties(client, a, svc); err != nil {
				return err
			}
		}
	}
	return nil
}

func serviceRequest(method string, a testAccount, svc auth.Service, body []byte) (*http.Request, error) {
	return signedRequest(method, a, svc, "/?restype=service&comp=properties", body, nil)
}

// signedRequest is a request to a's svc endpoint at pathAndQuery, signed
// with the account key.
func signedRequest(method string, a testAccount, svc auth.Service, pathAndQuery string, body []byte, header http.Header) (*http.Request, error) {
	u := fmt.Sprintf("https://%s.%s.core.windows.net%s", a.Name, svc, pathAndQuery)
	req, err := http.NewRequestWithContext(context.Background(), method, u, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for name, values := range header {
		req.Header[name] = values
	}
	req.Header.Set("x-ms-date", time.Now().UTC().Format(http.TimeFormat))
	req.Header.Set("x-ms-version", "2025-01-05")
	if len(body) > 0 && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/xml")
	}
	key, err := base64.StdEncoding.DecodeString(a.Key)
	if err != nil {
		return nil, err
	}
	auth.SignSharedKey(req, svc, a.Name, key)
	return req, nil
}

func setServiceProperties(client *http.Client, a testAccount, svc auth.Service, body string) error {
	req, err := serviceRequest(http.MethodPut, a, svc, []byte(body))
	if err != nil {
		return err
	}
	return expectStatus(client, req, http.StatusAccepted)
}

func getServiceProperties(client *http.Client, a testAccount, svc auth.Service) error {
	req, err := serviceRequest(http.MethodGet, a, svc, nil)
	if err != nil {
		return err
	}
	return expectStatus(client, req, http.StatusOK)
}

func expectStatus(client *http.Client, req *http.Request, want int) error {
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		return fmt.Errorf("%s %s: %s\n%s", req.Method, req.URL, resp.Status, body)
	}
	return nil
}
