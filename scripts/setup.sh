#!/usr/bin/env bash
# Installs what Corral's tests need into .tools/bin. Idempotent: a tool at the right version
# is left alone. Needs only Go and the Go module proxy.
set -euo pipefail
cd "$(dirname "$0")/.."
TOOLS="$PWD/.tools/bin"
mkdir -p "$TOOLS"

NATSCLI_VERSION=v0.5.0

if ! "$TOOLS/nats" --version 2>/dev/null | grep -q "${NATSCLI_VERSION#v}"; then
  echo "setup: installing natscli $NATSCLI_VERSION"
  GOBIN="$TOOLS" CGO_ENABLED=0 go install "github.com/nats-io/natscli/nats@$NATSCLI_VERSION"
fi
echo "setup: nats $("$TOOLS/nats" --version 2>&1 | head -1)"
