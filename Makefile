# The test command of README.md; .ci/run runs exactly this.
GO ?= go
FUZZTIME ?= 5s

.PHONY: test vet fuzz build run

test: vet
	$(GO) test -race -timeout 18m ./...
	$(MAKE) fuzz

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...

# Every fuzz target runs for FUZZTIME on top of its seed corpus (which the
# plain test run already replays).
fuzz:
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
