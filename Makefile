# The test command of README.md; .ci/run runs exactly this.
GO ?= go
# Go 1.27.3 from the module proxy, as .ci/run and README say.
export GOTOOLCHAIN ?= go1.27.3
FUZZTIME ?= 4s

# The parsers CI fuzzes for FUZZTIME each (package:target). Every other fuzz
# target's seed corpus runs with the plain tests; `make fuzz-all` fuzzes all.
CI_FUZZ = \
	./internal/frame/accesspolicy:FuzzParse \
	./internal/base/xmlw:FuzzStandardIsEscapeText \
	./internal/rule/auth:FuzzParseAuthorization \
	./internal/rule/auth:FuzzParseSAS \
	./internal/rule/auth:FuzzParseJWT \
	./internal/service/blob/byterange:FuzzParse \
	./internal/rule/structured:FuzzDecoder \
	./internal/rule/sddl:FuzzParse \
	./internal/rule/sddl:FuzzFromBinary \
	./internal/rule/posixacl:FuzzParse \
	./internal/service/blob/blocklist:FuzzParse \
	./internal/service/blob:FuzzParsePageRange \
	./internal/service/blob:FuzzTagQuery \
	./internal/service/blob/quickquery:FuzzParse \
	./internal/service/table/odata:FuzzParse \
	./internal/service/table/batch:FuzzParse \
	./internal/service/smb:FuzzFrame \
	./internal/service/smb:FuzzNTLM

.PHONY: test vet lint torture fuzz fuzz-all js python build run conformance

# The crash storm for as many SIGKILL-and-restart cycles as asked (CI runs
# 3 within go test): make torture CYCLES=150.
CYCLES ?= 150
LINEARIZE_OPS ?= 400
torture:
	LAZULI_TORTURE_CYCLES=$(CYCLES) $(GO) test -race -count=1 -timeout 120m -run '^TestCrashStorm$$' -v ./cmd/lazuli/
	LAZULI_LINEARIZE_OPS=$(LINEARIZE_OPS) $(GO) test -race -count=1 -timeout 60m -v ./internal/check/linearize/

# The SDK suites of the four services mostly start in-memory servers; they
# run once more on sqlite, the store users get by default.
SDK_SUITES = ./internal/service/blob/ ./internal/service/queue/ ./internal/service/table/ ./internal/service/file/

test: vet lint
	$(GO) test -race -timeout 18m ./...
	LAZULI_TEST_ENGINE=sqlite $(GO) test -race -timeout 18m $(SDK_SUITES)
	$(GO) test -race -timeout 18m -tags sdkbench ./internal/tool/bench/
	$(MAKE) js
	$(MAKE) conformance
	$(MAKE) fuzz

# The JavaScript SDK suite (tests/js): npm ci installs the locked SDK
# versions (from npm's cache when it has them), then run.mjs builds Lazuli,
# starts it and runs node's test runner. LAZULI_BIN skips the build.
js:
	cd tests/js && npm ci --prefer-offline --no-audit --no-fund && npm test

# The Python SDK's Data Lake workflows (tests/python, with Debian's
# python3-azure), alone; `make test` runs them with the other Go tests, and
# they skip when python3-azure is missing.
python:
	$(GO) test -count=1 -v ./tests/python/

# The official Go SDK storage modules' own tests, in live mode, against a
# Lazuli started over HTTPS behind a loopback-only proxy; failures not in
# internal/check/conformance/expected-failures.txt, and listed tests that pass,
# fail the run. CONFORMANCE_FLAGS="-modules azqueue" narrows it.
conformance:
	$(GO) run ./internal/check/conformance $(CONFORMANCE_FLAGS)

# staticcheck and govulncheck must be clean. govulncheck reads the database
# in VULNDB when it is set (.ci/run builds one from the module proxy's
# golang.org/x/vulndb), vuln.go.dev otherwise.
lint:
	staticcheck ./...
	govulncheck $(if $(VULNDB),-db file://$(VULNDB)) ./...

# gofmt, and goimports for the import groups (standard library apart from
# modules); .ci/run installs the pinned goimports.
vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }
	@command -v goimports >/dev/null || { echo "goimports is missing: .ci/run installs it (golang.org/x/tools/cmd/goimports@v0.52.0)"; exit 1; }
	@test -z "$$(goimports -l $$(git ls-files '*.go'))" || { echo "goimports needed:"; goimports -l $$(git ls-files '*.go'); exit 1; }
	@$(GO) mod tidy -diff >/dev/null || { echo "go.mod or go.sum is not tidy: run go mod tidy"; $(GO) mod tidy -diff; exit 1; }
	$(GO) vet ./...
	$(GO) vet -tags sdkbench ./internal/tool/bench/

# A real finding writes its input under testdata/fuzz and says "Failing
# input written"; a run that fails without one hit the fuzzing harness's own
# deadline (a worker still busy when -fuzztime ran out) and is tried once more.
fuzz:
	@log=$$(mktemp); trap 'rm -f $$log' EXIT; \
	for spec in $(CI_FUZZ); do \
	  pkg=$${spec%%:*}; target=$${spec##*:}; \
	  for attempt in 1 2; do \
	    echo "fuzz $$pkg $$target (attempt $$attempt)"; \
	    if $(GO) test -run='^$$' -fuzz="^$$target$$" -fuzztime=$(FUZZTIME) $$pkg >$$log 2>&1; then \
	      tail -n 2 $$log; break; \
	    fi; \
	    cat $$log; \
	    if grep -q "Failing input written" $$log || [ $$attempt = 2 ]; then exit 1; fi; \
	    echo "no failing input was found: the fuzzing harness timed out; trying $$target again"; \
	  done; \
	done

fuzz-all:
	@for pkg in $$($(GO) list ./...); do \
	  dir=$$($(GO) list -f '{{.Dir}}' $$pkg); \
	  for target in $$(grep -ho '^func Fuzz[A-Za-z0-9_]*' $$dir/*_test.go 2>/dev/null | sed 's/^func //'); do \
	    echo "fuzz $$pkg $$target"; \
	    $(GO) test -run='^$$' -fuzz="^$$target$$" -fuzztime=$(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done

build:
	$(GO) build -o bin/lazuli ./cmd/lazuli

run:
	$(GO) run ./cmd/lazuli
