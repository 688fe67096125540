#!/usr/bin/env bash
# Installs what Corral's tests need into .tools/ (commands in .tools/bin). Idempotent: a tool at the right version
# is left alone. Needs Go and the Go module proxy, and Node 20+ with npm (the npm registry) for
# the MCP Inspector.
set -euo pipefail
cd "$(dirname "$0")/.."
TOOLS="$PWD/.tools/bin"
mkdir -p "$TOOLS"

NATSCLI_VERSION=v0.5.0
INSPECTOR_VERSION=0.15.0   # pinned, with its whole tree, by test/inspector/package-lock.json
INSPECTOR="$PWD/.tools/inspector"
DEBIAN_PACKAGES=(adb)   # the real adb server the Android tests connect simulated devices to

# apt installs as root, or through sudo when there is one.
apt_install() {
  local sudo=()
  if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null; then sudo=(sudo -n); else
      echo "setup: need root (or sudo) to install Debian packages: $*" >&2; return 1
    fi
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get install -y -q --no-install-recommends "$@" >/dev/null ||
    { "${sudo[@]}" apt-get update -q >/dev/null && "${sudo[@]}" apt-get install -y -q --no-install-recommends "$@" >/dev/null; }
}

missing=()
for p in "${DEBIAN_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  apt_install "${missing[@]}"
fi
echo "setup: $(adb version | head -1)"

if ! "$TOOLS/nats" --version 2>/dev/null | grep -q "${NATSCLI_VERSION#v}"; then
  echo "setup: installing natscli $NATSCLI_VERSION"
  GOBIN="$TOOLS" CGO_ENABLED=0 go install "github.com/nats-io/natscli/nats@$NATSCLI_VERSION"
fi
echo "setup: nats $("$TOOLS/nats" --version 2>&1 | head -1)"

# The MCP Inspector CLI (test/inspector_test.go) goes into .tools/inspector from the committed
# lock file, so every machine runs the same tree; npm ci runs again only when the lock changed
# (installed.lock is the lock of the last npm ci that succeeded).
if ! command -v npm >/dev/null || ! command -v node >/dev/null; then
  echo "setup: installing Debian packages: nodejs npm"
  apt_install nodejs npm
fi
node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" -lt 20 ]; then
  echo "setup: the MCP Inspector needs Node 20 or later, found $(node --version): install a newer nodejs" >&2
  exit 1
fi
inspector_version() {
  node -p "require('$INSPECTOR/node_modules/@modelcontextprotocol/inspector/package.json').version" 2>/dev/null || true
}
if [ "$(inspector_version)" != "$INSPECTOR_VERSION" ] || ! cmp -s test/inspector/package-lock.json "$INSPECTOR/installed.lock"; then
  echo "setup: installing @modelcontextprotocol/inspector@$INSPECTOR_VERSION into .tools/inspector (npm ci)"
  mkdir -p "$INSPECTOR"
  cp test/inspector/package.json test/inspector/package-lock.json "$INSPECTOR/"
  npm ci --prefix "$INSPECTOR" --no-audit --no-fund --loglevel=error >/dev/null
  cp test/inspector/package-lock.json "$INSPECTOR/installed.lock"
fi
echo "setup: @modelcontextprotocol/inspector $(inspector_version) on node $(node --version)"
