#!/usr/bin/env bash
# Mutation testing (make mutate) of the code where a silent bug costs most: the scheduler and
# its leases (actors/), node liveness and the lost-node clean-up (broker/), and the front door's
# policy (mcp/). gremlins changes one operator at a time in the covered code and runs the
# package's tests against it; a mutant the tests do not notice LIVED. docs/testing.md lists each
# survivor with why it is harmless, or the test that now kills it.
#
# Usage: scripts/mutate.sh [TARGET…]   TARGET is one of the names below (default: all of them).
# Results, one JSON a target, go to data/mutate/.
set -euo pipefail
cd "$(dirname "$0")/.."
# gremlins times each mutant's test run out at --timeout-coefficient × the time its coverage run
# took; a coverage run answered from the test cache takes under a second, and every mutant of a
# package whose tests take longer than 20 times that would be reported TIMED OUT. -count=1
# makes the coverage run run.
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-count=1"
TOOLS="$PWD/.tools/bin"
GREMLINS_VERSION=v0.6.0
mkdir -p "$TOOLS" data/mutate

if ! go version -m "$TOOLS/gremlins" 2>/dev/null | grep -q "github.com/go-gremlins/gremlins[[:space:]]*$GREMLINS_VERSION"; then
  echo "mutate: installing gremlins $GREMLINS_VERSION"
  GOBIN="$TOOLS" CGO_ENABLED=0 go install "github.com/go-gremlins/gremlins/cmd/gremlins@$GREMLINS_VERSION"
fi

# Each target: a package and the files of it that are mutated (the others are left alone).
declare -A files=(
  [scheduler]="actors:scheduler.go lease.go device.go drain.go mirror.go"
  [liveness]="broker:liveness.go reap.go client.go"
  [policy]="mcp:policy.go auth.go ratelimit.go origin.go"
)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(scheduler liveness policy)

status=0
for target in "${targets[@]}"; do
  spec=${files[$target]:-}
  [ -n "$spec" ] || { echo "mutate: unknown target $target (known: ${!files[*]})" >&2; exit 2; }
  pkg=${spec%%:*}
  keep=" ${spec#*:} "
  exclude=()
  for f in "$pkg"/*.go; do
    base=${f##*/}
    case "$base" in *_test.go) continue ;; esac
    [[ "$keep" == *" $base "* ]] || exclude+=(--exclude-files "^$base\$")  # gremlins matches paths relative to the package
  done
  for d in "$pkg"/*/; do  # gremlins walks sub-packages too (broker/embedded, mcp/steps): not ours
    [ -d "$d" ] && exclude+=(--exclude-files "^${d#"$pkg"/}")
  done
  echo "mutate: $target ($pkg:${keep% })"
  # One worker: the package's tests start real NATS servers and actors, and two at once on a
  # 2-core machine time out as if the mutant hung them.
  "$TOOLS/gremlins" unleash "./$pkg" "${exclude[@]}" --workers 1 --timeout-coefficient 20 \
    --output "data/mutate/$target.json" -S lt || status=1
done
exit $status
