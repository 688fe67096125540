#!/usr/bin/env bash
# Installs what Corral's tests need into .tools/bin. Idempotent: a tool at the right version
# is left alone. Needs only Go and the Go module proxy.
set -euo pipefail
cd "$(dirname "$0")/.."
TOOLS="$PWD/.tools/bin"
mkdir -p "$TOOLS"

NATSCLI_VERSION=v0.5.0
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
