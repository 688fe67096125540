#!/usr/bin/env bash
# Compares the benchmarks of two commits side by side: builds ./bench at BASE (default: main's
# merge base with HEAD's first parent, or HEAD~1) and at the working tree, then runs them in
# turns, COUNT rounds, so that both see the same machine. Prints, per benchmark metric, the
# median of each and their ratio (new / base).
#
#   scripts/bench-compare.sh 2996187
#   BENCH='^BenchmarkCall$' COUNT=7 scripts/bench-compare.sh HEAD~3
#
# Knobs: BENCH (regexp, default the latency, lease and tools/list benchmarks), BENCHTIME
# (default 1s), COUNT (default 5).
set -euo pipefail
cd "$(dirname "$0")/.."

base=${1:-HEAD~1}
BENCH=${BENCH:-'^(BenchmarkCall|BenchmarkCallParallel|BenchmarkLease|BenchmarkToolsList)$'}
BENCHTIME=${BENCHTIME:-1s}
COUNT=${COUNT:-5}
export GOMAXPROCS=2

tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/base" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
git worktree add --detach "$tmp/base" "$base" >/dev/null 2>&1
echo "bench-compare: compiling ./bench at $base and at the working tree" >&2
(cd "$tmp/base" && go test -c -o "$tmp/base.test" ./bench)
go test -c -o "$tmp/new.test" ./bench

for i in $(seq 1 "$COUNT"); do
  for which in base new; do
    echo "bench-compare: round $i of $COUNT, $which" >&2
    "$tmp/$which.test" -test.run='^$' -test.bench="$BENCH" -test.benchtime="$BENCHTIME" \
      -test.count=1 -test.cpu=2 -test.timeout=15m | grep -E '^Benchmark' | sed "s/^/$which /" >>"$tmp/raw"
  done
done

awk '
function median(s,   n, a, i, j, t) {
  n = split(s, a, " ")
  for (i = 2; i <= n; i++) { t = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
  return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{
  which = $1; name = $2; sub(/-[0-9]+$/, "", name)
  for (i = 4; i + 1 <= NF; i += 2) {
    k = name " " $(i + 1)
    if (!(k in seen)) { seen[k] = 1; order[++n] = k }
    v[which, k] = v[which, k] (v[which, k] == "" ? "" : " ") $i
  }
}
END {
  print "| benchmark | metric | base (median) | new (median) | new / base |"
  print "|---|---|---|---|---|"
  for (i = 1; i <= n; i++) {
    k = order[i]; split(k, p, " ")
    if (v["base", k] == "" || v["new", k] == "") continue
    b = median(v["base", k]); w = median(v["new", k])
    printf "| %s | %s | %.4g | %.4g | %s |\n", p[1], p[2], b, w, (b > 0 ? sprintf("%.2f", w / b) : "—")
  }
}' "$tmp/raw"
