// Command conformance runs the official Azure SDK for Go storage modules'
// own test files (azblob, azqueue, azfile, aztables, azdatalake, at the versions
// Lazuli's go.mod requires), unmodified from the module cache, in live
// mode against a Lazuli it starts, as the SDK team runs them against Azure:
//
//   - Lazuli serves HTTPS with a certificate from a test CA made for the run;
//     the tests trust the CA through SSL_CERT_FILE.
//   - The tests address "<account>.<service>.core.windows.net" (and
//     "<account>.table.cosmos.azure.com" for aztables' Cosmos cases;
//     "<account>.dfs.core.windows.net", which Lazuli serves on its Blob
//     port, for azdatalake's). Their HTTPS_PROXY and HTTP_PROXY point at a
//     loopback CONNECT proxy in this program that tunnels those names to
//     Lazuli's ports and refuses every other destination, so nothing leaves
//     the machine.
//   - Entra ID (login.microsoftonline.com) is a token service in this
//     program: the tests sign in as a service principal (AZURE_TENANT_ID,
//     AZURE_CLIENT_ID, AZURE_CLIENT_SECRET) and get tokens signed with a key
//     made for the run, which Lazuli verifies (--oauthKeys), so the tests
//     that use a token credential or user delegation SAS run too.
//   - The accounts the SDKs' test-resources templates deploy (primary,
//     secondary, premium, soft delete, ...) are Lazuli accounts made with
//     AZURITE_ACCOUNTS, handed to the tests in the variables they read.
//
// Each module is copied from the read-only module cache to a temporary
// directory and tested there with `go test -json` (its test-only
// dependencies come from the module proxy). The leaf tests' results are
// compared with expected-failures.txt, which names every test known to
// fail and why. The run fails on a failure not listed, and on a listed
// test that passes, is skipped or no longer exists, so the list only
// shrinks: remove an entry when Lazuli is fixed, add one only with its
// reason. An entry whose reason starts with "intermittent:" accepts either
// outcome and every run prints which it was.
//
//	go run ./internal/check/conformance                      # all five modules (make conformance)
//	go run ./internal/check/conformance -modules azqueue     # one module
//	go run ./internal/check/conformance -modules azblob -run 'Test/TestPutBlock'
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

type options struct {
	modules  string
	expected string
	lazuli   string
	memory   bool
	run      string
	timeout  time.Duration
	report   string
	keep     bool
	parallel int
	from     string
}

func main() {
	var o options
	flag.StringVar(&o.modules, "modules", "azblob,azqueue,azfile,aztables,azdatalake", "comma-separated modules to test")
	flag.StringVar(&o.expected, "expected", "internal/check/conformance/expected-failures.txt", "the list of expected failures")
	flag.StringVar(&o.lazuli, "lazuli", "", "a Lazuli binary to test (default: build ./cmd/lazuli)")
	flag.BoolVar(&o.memory, "memory", false, "run Lazuli with --inMemoryPersistence instead of its default sqlite store")
	flag.StringVar(&o.run, "run", "", "go test -run pattern (a partial run does not report listed tests that did not run)")
	flag.DurationVar(&o.timeout, "timeout", 20*time.Minute, "go test -timeout for each module")
	flag.StringVar(&o.report, "report", "", "directory for each module's go test -json output and failure details (default: a new temporary directory)")
	flag.BoolVar(&o.keep, "keep", false, "keep the working directory (module copies, Lazuli's data)")
	flag.StringVar(&o.from, "from", "", "judge the go test -json files a previous run left in this -report directory instead of running the tests")
	flag.IntVar(&o.parallel, "p", 6, "go test -p: packages of each module tested at once (they mostly wait on the sleeps the tests make)")
	flag.Parse()
	ok, err := run(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		os.Exit(2)
	}
	if !ok {
		os.Exit(1)
	}
}

func run(o options) (bool, error) {
	start := time.Now()
	modules, err := selectModules(o.modules)
	if err != nil {
		return false, err
	}
	listFile, err := os.Open(o.expected)
	if err != nil {
		return false, err
	}
	list, err := parseExpected(listFile)
	listFile.Close()
	if err != nil {
		return false, fmt.Errorf("%s: %w", o.expected, err)
	}
	work, err := os.MkdirTemp("", "lazuli-conformance-")
	if err != nil {
		return false, err
	}
	if o.keep {
		fmt.Println("working directory:", work)
	} else {
		defer os.RemoveAll(work)
	}
	if o.from != "" {
		return judgeReports(o, modules, list)
	}
	if o.report == "" {
		if o.report, err = os.MkdirTemp("", "lazuli-conformance-report-"); err != nil {
			return false, err
		}
	} else if err := os.MkdirAll(o.report, 0o755); err != nil {
		return false, err
	}

	envFor, stop, err := startTarget(o, work)
	if err != nil {
		return false, err
	}
	defer stop()

	// The modules run at once: their tests mostly wait (on sleeps the
	// tests make for the service's clock, on Lazuli), and none shares a
	// container, queue, share or table with another.
	type result struct {
		v   verdict
		err error
	}
	results := make([]result, len(modules))
	var wg sync.WaitGroup
	for i, m := range modules {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := testModule(o, m, work, envFor(m.Short()), list)
			results[i] = result{v, err}
		}()
	}
	wg.Wait()
	allOK := true
	for i, m := range modules {
		if results[i].err != nil {
			return false, fmt.Errorf("%s: %w", m.Short(), results[i].err)
		}
		printVerdict(m, results[i].v, list)
		allOK = allOK && results[i].v.ok()
	}
	fmt.Printf("details: %s\nwall time: %s\n", o.report, time.Since(start).Round(time.Second))
	return allOK, nil
}

// judgeReports compares the results a previous run left in o.from with
// the list, as after a run: for revising the list without running again.
func judgeReports(o options, modules []sdkModule, list expectedFailures) (bool, error) {
	allOK := true
	for _, m := range modules {
		in, err := os.Open(filepath.Join(o.from, m.Short()+".json"))
		if err != nil {
			return false, err
		}
		leaves, err := parseTestEvents(in)
		in.Close()
		if err != nil {
			return false, err
		}
		v := judge(m.Name, leaves, list)
		printVerdict(m, v, list)
		allOK = allOK && v.ok()
	}
	return allOK, nil
}

func selectModules(names string) ([]sdkModule, error) {
	var out []sdkModule
	for _, name := range strings.Split(names, ",") {
		found := false
		for _, m := range sdkModules {
			if m.Short() == strings.TrimSpace(name) {
				out, found = append(out, m), true
			}
		}
		if !found {
			return nil, fmt.Errorf("-modules: unknown module %q", name)
		}
	}
	return out, nil
}

// startTarget builds and starts Lazuli behind the proxy, configures the
// test accounts, and returns each module's test environment.
func startTarget(o options, work string) (func(module string) map[string]string, func(), error) {
	bin := o.lazuli
	if bin == "" {
		bin = filepath.Join(work, "lazuli")
		build := exec.Command("go", "build", "-o", bin, "./cmd/lazuli")
		build.Stdout, build.Stderr = os.Stdout, os.Stderr
		if err := build.Run(); err != nil {
			return nil, nil, fmt.Errorf("building lazuli: %w", err)
		}
	}
	tlsFiles, err := writeTLS(work, certificateNames)
	if err != nil {
		return nil, nil, err
	}
	own := moduleAccounts()
	accounts := newTestAccounts()
	for _, ma := range own {
		accounts = append(accounts, ma.Account)
	}
	keyFile := filepath.Join(work, "oauth-keys.pem")
	tokens, err := startTokenService(tlsFiles, keyFile)
	if err != nil {
		return nil, nil, err
	}
	// The proxy listens before Lazuli starts, so that Lazuli can be told to
	// fetch copy sources through it; it routes once Lazuli's ports are
	// known.
	var routes atomic.Pointer[func(string) (string, bool)]
	proxy, err := startProxy(func(host string) (string, bool) {
		if route := routes.Load(); route != nil {
			return (*route)(host)
		}
		return "", false
	})
	if err != nil {
		tokens.Close()
		return nil, nil, err
	}
	// Copy sources on another account or service are addressed by their
	// Azure host names: Lazuli fetches them through the proxy (HTTPS_PROXY,
	// trusting the test CA), which keeps every fetch on the machine, and
	// allows no other host but its own.
	flags := []string{"--oauthKeys", keyFile, "--copySourceAllow", "localhost,127.0.0.1,*.core.windows.net",
		"--premiumAccounts", accountsWhere(accounts, func(a testAccount) bool { return a.Premium }),
		"--hnsAccounts", accountsWhere(accounts, func(a testAccount) bool { return a.HNS }),
		"--encryptionScopes", encryptionScope + "," + dataLakeEncryptionScope,
		// Copies between the test accounts stay pending a while, as on
		// Azure: TestBlobAbortCopyInProgress aborts one (8 MiB).
		"--crossAccountCopyRate", "1"}
	if o.memory {
		flags = append(flags, "--inMemoryPersistence")
	} else {
		flags = append(flags, "--location", filepath.Join(work, "data"))
	}
	lazuli, err := startLazuli(bin, azuriteAccounts(accounts), tlsFiles, flags, os.Stderr,
		"HTTPS_PROXY="+proxy.URL(), "NO_PROXY=localhost,127.0.0.1", "SSL_CERT_FILE="+tlsFiles.CA)
	if err != nil {
		proxy.Close()
		tokens.Close()
		return nil, nil, err
	}
	route := router(accounts, lazuli.addrs, map[string]string{entraHost: tokens.Addr()})
	routes.Store(&route)
	stop := func() {
		proxy.Close()
		lazuli.Stop()
		tokens.Close()
		if refused := proxy.Refused(); len(refused) > 0 {
			fmt.Println("destinations the proxy refused (requests):", formatCounts(refused))
		}
	}
	client, err := proxiedClient(proxy.URL(), tlsFiles.CA)
	if err == nil {
		err = configureAccounts(client, accounts)
	}
	if err != nil {
		stop()
		return nil, nil, fmt.Errorf("configuring the test accounts: %w", err)
	}
	env := accountEnv(accounts)
	for k, v := range tokens.env() {
		env[k] = v
	}
	for k, v := range map[string]string{
		"AZURE_RECORD_MODE":  "live",
		"PROXY_MANUAL_START": "true",
		"HTTPS_PROXY":        proxy.URL(), "https_proxy": proxy.URL(),
		"HTTP_PROXY": proxy.URL(), "http_proxy": proxy.URL(),
		"NO_PROXY": "", "no_proxy": "",
		"SSL_CERT_FILE":                           tlsFiles.CA,
		"AZURE_STORAGE_ENCRYPTION_SCOPE":          encryptionScope,
		"DATALAKE_AZURE_STORAGE_ENCRYPTION_SCOPE": dataLakeEncryptionScope,
	} {
		env[k] = v
	}
	return func(module string) map[string]string { return moduleEnv(env, own, module) }, stop, nil
}

// certificateNames are the names Lazuli's certificate covers: every
// account's host name on every service.
var certificateNames = []string{
	"*.blob.core.windows.net", "*.queue.core.windows.net", "*.table.core.windows.net",
	"*.file.core.windows.net", "*.dfs.core.windows.net", "*.table.cosmos.azure.com", "localhost", entraHost,
}

// router tunnels "<account>[-secondary].<service>.core.windows.net" of the
// run's accounts (and "<account>.table.cosmos.azure.com") to Lazuli, and
// the hosts in others to their addresses. The dfs endpoint is Lazuli's
// Blob port, which tells Data Lake requests from Blob requests by their
// query and headers.
func router(accounts []testAccount, addrs, others map[string]string) func(string) (string, bool) {
	known := map[string]bool{}
	for _, a := range accounts {
		known[a.Name] = true
	}
	suffixes := map[string]string{
		".blob.core.windows.net": "blob", ".queue.core.windows.net": "queue",
		".table.core.windows.net": "table", ".file.core.windows.net": "file",
		".dfs.core.windows.net": "blob", ".table.cosmos.azure.com": "table",
	}
	return func(host string) (string, bool) {
		if addr, ok := others[host]; ok {
			return addr, true
		}
		for suffix, svc := range suffixes {
			label, ok := strings.CutSuffix(host, suffix)
			if ok && known[strings.TrimSuffix(label, "-secondary")] {
				return addrs[svc], true
			}
		}
		return "", false
	}
}

func formatCounts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s (%d)", k, m[k]))
	}
	return strings.Join(parts, ", ")
}
