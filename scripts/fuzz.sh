#!/usr/bin/env bash
# Runs every fuzz target of the module for a while each: scripts/fuzz.sh [FUZZTIME]
set -euo pipefail
cd "$(dirname "$0")/.."
t="${1:-30s}"
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for target in $(grep -hoE '^func (Fuzz[A-Za-z0-9_]+)' "$dir"/*_test.go 2>/dev/null | awk '{print $2}'); do
    echo "fuzz: $pkg $target for $t"
    go test -run='^$' -fuzz="^${target}\$" -fuzztime="$t" "$pkg"
  done
done
