# Corral — make help lists the targets.
SHELL := /bin/bash
GO ?= go
TOOLS := $(CURDIR)/.tools/bin
export PATH := $(TOOLS):$(PATH)
# Tests that need a tool fail (instead of skipping) when it is missing.
export CORRAL_REQUIRE_TOOLS := 1
# Build and test with Go 1.27.3, whatever Go the machine has (1.26 or later): the go command
# fetches it once through the Go module proxy (76 MB). Its standard library has the fixes for
# the net/http, crypto/tls and crypto/x509 vulnerabilities govulncheck finds reachable in Go
# 1.26.8, whose fixes (1.26.9, 1.26.10) are not served. go.mod still says go 1.26, so `go
# build` outside make works with Go 1.26 too.
export GOTOOLCHAIN := go1.27.3
# What corral version (and the gateway's MCP serverInfo, the nodes' services) reports: the
# commit, from git describe, as 0.1.0-dev+1a2b3c4d5e6f(.dirty); make build VERSION=1.2.3 makes
# a release (from the command line only: a VERSION in the environment may mean anything).
# The Go toolchain's own VCS stamps are off where GOFLAGS has -buildvcs=false, and then every
# build of a mixed farm said 0.1.0-dev. Without git DESCRIBE is empty and those stamps (or
# plain 0.1.0-dev) say it.
DESCRIBE := $(shell git describe --always --dirty --abbrev=12 2>/dev/null)
LDFLAGS := -X github.com/corral-farm/corral/internal/buildinfo.described=$(DESCRIBE)$(if $(filter command line,$(origin VERSION)), -X github.com/corral-farm/corral/internal/buildinfo.release=$(VERSION))

.PHONY: help setup run build build-vision test-vision test test-short bench bench-compare fuzz lint clean chart-assets mutate vulncheck

help: ## list the targets
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-14s %s\n", $$1, $$2}'

setup: ## install what the tests need (idempotent): adb, natscli, the MCP Inspector
	@./scripts/setup.sh

build: ## build bin/corral (static, CGO_ENABLED=0)
	CGO_ENABLED=0 $(GO) build -ldflags '$(LDFLAGS)' -o bin/corral ./cmd/corral

build-vision: ## build bin/corral with the vision worker (cgo: OpenCV 4.6 and Tesseract 5.3 from Debian, make setup)
	CGO_ENABLED=1 $(GO) build -tags vision -ldflags '$(LDFLAGS)' -o bin/corral ./cmd/corral

run: ## run Corral on this machine: embedded NATS, simulated phones, MCP on 127.0.0.1:8420; vision when OpenCV and Tesseract can be installed
	@./scripts/setup-vision.sh --best-effort
	@if pkg-config --exists opencv4 tesseract 2>/dev/null; then \
		echo "make run: OpenCV and Tesseract are installed: building corral with vision (a worker runs in-process)"; \
		$(MAKE) --no-print-directory build-vision; \
	else \
		echo "make run: OpenCV or Tesseract is missing (pkg-config opencv4 tesseract): building corral WITHOUT vision;"; \
		echo "          tap_ocr, tap_cv and peek on screens without a UI tree will say so. make setup installs them."; \
		$(MAKE) --no-print-directory build; \
	fi
	./bin/corral up --data data

test: setup ## vet, format check, govulncheck (reports; VULNCHECK_STRICT=1 fails on findings), and every test under -race
	$(GO) vet ./...
	GOOS=darwin GOARCH=arm64 $(GO) build -o /dev/null ./... # the README promises macOS: syscall types differ there
	@./scripts/vulncheck.sh
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) test -race -count=1 -timeout 20m ./...
	@pkg-config --exists opencv4 tesseract || { echo "make test: the vision worker needs OpenCV and Tesseract (libopencv-dev, libtesseract-dev): run make setup"; exit 1; }
	$(GO) vet -tags vision ./vision/... ./cmd/corral/ ./test/ ./nodes/tools/
	$(GO) test -race -count=1 -timeout 20m -tags vision ./vision/... ./cmd/corral/
	$(GO) test -race -count=1 -timeout 20m -tags vision -run 'Vision|Runbook' ./test/
	$(GO) test -race -count=1 -timeout 20m -tags vision -run '^TestWorker|Accuracy' ./nodes/tools/

test-vision: ## the vision worker's tests with the real engine (cgo, -tags vision; make setup installs OpenCV and Tesseract)
	CGO_ENABLED=1 $(GO) test -race -count=1 -tags vision -timeout 20m ./vision/... ./cmd/corral/...
	CGO_ENABLED=1 $(GO) test -race -count=1 -tags vision -timeout 20m -run 'Accuracy' ./nodes/tools/

test-short: ## unit tests only (no farm), quick
	$(GO) test -race -short ./...

bench: ## run the benchmarks and print the report the README quotes
	@./scripts/bench.sh

bench-compare: ## the benchmarks of BASE (a commit, default HEAD~1) and of the working tree, in turns, side by side
	@./scripts/bench-compare.sh $(or $(BASE),HEAD~1)

fuzz: ## run every fuzz target for FUZZTIME (default 30s) each
	@./scripts/fuzz.sh $${FUZZTIME:-30s}

chart-assets: ## copy deploy/grafana/*.json and deploy/prometheus/rules.yaml into the Helm chart (helm/corral), and write its files/ made from the Go source (NATS permissions, the policy's tool names)
	@./scripts/sync-chart-assets.sh

vulncheck: ## govulncheck against the vulnerability database make setup builds (offline)
	@./scripts/vulncheck.sh

lint: ## go vet and gofmt
	$(GO) vet ./...
	@test -z "$$(gofmt -l .)" || (gofmt -l . && exit 1)

clean: ## remove build output and local data
	rm -rf bin data

mutate: ## mutation testing of the scheduler, liveness and policy code (gremlins; slow: ~30 min on 2 cores)
	@./scripts/mutate.sh $(TARGETS)
