package bench

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/lazuli-storage/lazuli/internal/base/clock"
	"github.com/lazuli-storage/lazuli/internal/check/lazulitest"
	"github.com/lazuli-storage/lazuli/internal/rule/auth"
)

// expectedErrors are the error keys a scenario may legitimately report in a
// short run against a correct server; anything else fails the test.
var expectedErrors = map[string][]string{
	// Workers If-Match-update the same 100 hot blobs: a lost race is a 412.
	"cond-update": {"412 ConditionNotMet"},
	// A release cut short by the end of the warm-up may still reach the
	// server after the next cycle's acquire: that cycle's renew (or
	// release) then finds no lease.
	"lease-cycle": {"409 LeaseIdMismatchWithLeaseOperation", "409 LeaseNotPresentWithLeaseOperation"},
	// A merge cut short by the end of the warm-up may land without its new
	// ETag reaching the worker, whose next merge then fails once.
	"table-merge-ifmatch": {"412 UpdateConditionNotSatisfied"},
}

// readers are the scenarios whose operations read response bodies, so
// report bytes moved in both drivers.
var readers = map[string]bool{"blob-get-1k": true, "blob-get-1m": true, "blob-download-256m": true,
	"list-blobs": true, "table-point-get": true, "table-query": true, "file-read-1m": true}

// testOptions is a very short run with the small data sets.
func testOptions(sdk bool) Options {
	return Options{Duration: 200 * time.Millisecond, Warmup: 50 * time.Millisecond, Concurrency: 2,
		QueueDepth: 20, ExpiringMessages: 50, ListBlobs: 50, SDK: sdk, small: true}
}

// runUntilOps runs one scenario, lengthening the window (opts.Duration,
// then 5 and 25 times that) while no operation completes: on a busy
// machine under the race detector the workers may start nothing before a
// short window ends.
func runUntilOps(t *testing.T, target Target, name string, opts Options) Result {
	t.Helper()
	for _, d := range []time.Duration{opts.Duration, 5 * opts.Duration, 25 * opts.Duration} {
		opts.Duration = d
		res, err := Run(context.Background(), target, []string{name}, opts)
		if err != nil {
			t.Fatal(err)
		}
		if res[0].Ops > 0 || len(res[0].Errors) > 0 || res[0].Skipped != "" {
			return res[0]
		}
		t.Logf("%s: no operation completed in %v; trying a longer window", name, d)
	}
	t.Fatalf("%s: no operation completed", name)
	return Result{}
}

func startLazuli(t *testing.T) Target {
	t.Helper()
	in := lazulitest.Start(t, lazulitest.Options{InMemory: true, Clock: clock.Real{}})
	target, err := ParseConnectionString("lazuli", in.ConnectionString)
	if err != nil {
		t.Fatal(err)
	}
	return target
}

// drivers are the drivers this build has: the lean one, and the SDK's
// with -tags sdkbench.
func drivers() []bool {
	if sdkBuilt {
		return []bool{false, true}
	}
	return []bool{false}
}

func driverName(sdk bool) string {
	if sdk {
		return "sdk"
	}
	return "lean"
}

func TestScenariosLean(t *testing.T) { runEveryScenario(t, startLazuli(t), testOptions(false), All()) }

func TestScenariosSDK(t *testing.T) {
	if !sdkBuilt {
		t.Skip("the SDK driver is built with -tags sdkbench")
	}
	runEveryScenario(t, startLazuli(t), testOptions(true), All())
}

// Without the sdkbench tag --sdk says how to get the driver.
func TestSDKDriverLeftOut(t *testing.T) {
	if sdkBuilt {
		t.Skip("this build has the SDK driver")
	}
	target, closeNull, err := NullTarget()
	if err != nil {
		t.Fatal(err)
	}
	defer closeNull()
	_, err = Run(context.Background(), target, []string{"blob-put-1k"}, testOptions(true))
	if !errors.Is(err, errNoSDK) {
		t.Fatalf("--sdk without the driver: %v, want errNoSDK", err)
	}
}

// TestBigTransfersFullSize performs one operation of each 256 MiB scenario
// as the command runs it (the other tests shrink them to 8 MiB), in both
// drivers, outside any time window.
func TestBigTransfersFullSize(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("moves 1 GiB per driver; skipped under -short and the race detector")
	}
	target := startLazuli(t)
	for _, sdk := range drivers() {
		for _, name := range []string{"blob-upload-256m", "blob-download-256m"} {
			t.Run(driverName(sdk)+"/"+name, func(t *testing.T) {
				if n := runOnce(t, target, name, Options{Concurrency: 1, SDK: sdk}); n != 256*mib {
					t.Errorf("%s moved %d bytes, want 256 MiB", name, n)
				}
			})
		}
	}
}

// runOnce prepares scenario name as Run does, performs one operation and
// returns the bytes it moved.
func runOnce(t *testing.T, target Target, name string, opts Options) int64 {
	t.Helper()
	s, _ := scenarioByName(name)
	e := &env{opts: opts, prefix: s.shortName() + randomHex(4), workers: 1}
	setup, err := e.connect(target, s, 8)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	do, cleanup, err := setup(ctx, e)
	if err != nil {
		t.Fatalf("setup: %v", err)
	}
	defer cleanup(ctx)
	n, err := do(ctx, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// runEveryScenario measures each named scenario briefly and checks that
// operations completed, moved bytes where they read, and failed only as
// expected.
func runEveryScenario(t *testing.T, target Target, opts Options, names []string) {
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			s, _ := scenarioByName(name)
			if opts.SDK && !hasSDKVersion(name) {
				t.Skip("a lean-client scenario: it has no SDK version")
			}
			if s.svc == auth.File && target.FileURL == "" {
				t.Skip("the in-process Lazuli has no file endpoint (File service not registered in internal/run/app/services.go)")
			}
			r := runUntilOps(t, target, name, opts)
			if r.Skipped != "" {
				t.Skip(r.Skipped)
			}
			t.Logf("%s: %d ops, %.0f ops/s, %.1f MB/s, errors %v", name, r.Ops, r.OpsPerSec, r.MBPerSec, r.Errors)
			if r.Ops == 0 {
				t.Errorf("%s: no operation completed", name)
			}
			if readers[name] && r.MBPerSec == 0 {
				t.Errorf("%s: read operations reported no bytes", name)
			}
			if unexpected := unexpectedErrors(r.Errors, expectedErrors[name]); len(unexpected) > 0 {
				t.Errorf("%s: unexpected errors %s", name, strings.Join(unexpected, ", "))
			}
		})
	}
}

// hasSDKVersion says whether a scenario runs through the SDK driver too:
// the growth scenarios are the lean client's alone.
func hasSDKVersion(name string) bool { return sdkSetups[name] != nil }

func unexpectedErrors(errs map[string]int64, allowed []string) []string {
	var out []string
	for k := range errs {
		ok := false
		for _, a := range allowed {
			ok = ok || k == a
		}
		if !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// TestNullTarget runs every scenario in both drivers against the null
// server, whose answers the SDK clients must accept.
func TestNullTarget(t *testing.T) {
	target, closeNull, err := NullTarget()
	if err != nil {
		t.Fatal(err)
	}
	defer closeNull()
	for _, sdk := range drivers() {
		t.Run(driverName(sdk), func(t *testing.T) {
			for _, name := range All() {
				opts := testOptions(sdk)
				opts.Duration, opts.Warmup = 100*time.Millisecond, 20*time.Millisecond
				if sdk && !hasSDKVersion(name) {
					continue
				}
				r := runUntilOps(t, target, name, opts)
				if s, _ := scenarioByName(name); s.hns != (r.Skipped != "") {
					t.Errorf("%s: skipped %q; want skipped exactly when it needs a hierarchical namespace (%v)", name, r.Skipped, s.hns)
					continue
				}
				if r.Skipped != "" {
					continue
				}
				if name == "list-blobs" {
					// The null listing is empty: every operation says so.
					if r.Ops != 0 || len(r.Errors) != 1 || r.Errors["list-blobs: empty listing"] == 0 {
						t.Errorf("list-blobs: %d ops, errors %v; want only empty-listing errors", r.Ops, r.Errors)
					}
					continue
				}
				if r.Ops == 0 || len(r.Errors) > 0 {
					t.Errorf("%s: %d ops, errors %v", name, r.Ops, r.Errors)
				}
			}
		})
	}
}

func TestErrorKey(t *testing.T) {
	long := strings.Repeat("x", 100)
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&statusError{status: 412, code: "ConditionNotMet"}, "412 ConditionNotMet"},
		{&statusError{status: 500}, "500"},
		{fmt.Errorf("put: %w", &statusError{status: 404, code: "BlobNotFound"}), "404 BlobNotFound"},
		{errors.New("queue empty"), "queue empty"},
		{errors.New(long), long[:60]},
	} {
		if got := errorKey(tc.err); got != tc.want {
			t.Errorf("errorKey(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}
