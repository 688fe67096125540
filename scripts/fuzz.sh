#!/usr/bin/env bash
# Runs every fuzz target of the module for a while each: scripts/fuzz.sh [FUZZTIME]
set -euo pipefail
cd "$(dirname "$0")/.."
t="${1:-30s}"
# With OpenCV and Tesseract installed, the vision worker's targets too (-tags vision, cgo).
tags=()
pkg-config --exists opencv4 tesseract 2>/dev/null && tags=(-tags vision)
for pkg in $(go list "${tags[@]}" ./...); do
  dir=$(go list "${tags[@]}" -f '{{.Dir}}' "$pkg")
  for target in $(grep -hoE '^func (Fuzz[A-Za-z0-9_]+)' "$dir"/*_test.go 2>/dev/null | awk '{print $2}'); do
    echo "fuzz: $pkg $target for $t"
    go test "${tags[@]}" -run='^$' -fuzz="^${target}\$" -fuzztime="$t" "$pkg"
  done
done
