#!/usr/bin/env bash
# Runs Corral's benchmarks (package ./bench) on 2 cores and prints the Markdown report the
# README quotes: metric | target | measured (median of the runs) | pass/fail, then a breakdown.
# Needs only Go. The raw `go test -bench` output is kept in bin/bench-raw.txt.
#
# Knobs (environment): BENCHTIME (default 2s) and COUNT (default 5) for the latency and
# throughput benchmarks; ABORT_ROUNDS (default 200) aborts and cancels of a sleep per run;
# SCALE_RUNS (default 3) processes of the 10,000-device benchmark; BENCH_STRICT=1 exits 1 when
# a target is missed.
set -euo pipefail
cd "$(dirname "$0")/.."

BENCHTIME=${BENCHTIME:-2s}
COUNT=${COUNT:-5}
SCALE_RUNS=${SCALE_RUNS:-3}
export GOMAXPROCS=2 # the targets are "on 2 cores"

mkdir -p bin
raw=bin/bench-raw.txt
bin=$(mktemp -d)/bench.test
trap 'rm -rf "$(dirname "$bin")"' EXIT

load() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?"; }
# busy prints how many cores were busy (all processes) over one second, from /proc/stat.
busy() {
  local a b
  a=$(head -1 /proc/stat 2>/dev/null) || { echo "?"; return; }
  sleep 1
  b=$(head -1 /proc/stat)
  awk -v a="$a" -v b="$b" 'BEGIN {
    split(a, x, " "); split(b, y, " "); tot = 0; idle = 0
    for (i = 2; i <= 9; i++) tot += y[i] - x[i]
    idle = (y[5] - x[5]) + (y[6] - x[6])
    n = 0; while ((getline l < "/proc/stat") > 0) if (l ~ /^cpu[0-9]/) n++
    printf "%.2f", (tot > 0) ? n * (tot - idle) / tot : 0
  }'
}
load_start=$(load)
busy_start=$(busy)

echo "bench: compiling ./bench" >&2
go test -c -o "$bin" ./bench

{
  echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(go version) commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet HEAD 2>/dev/null || echo '+dirty')"
  echo "# GOMAXPROCS=$GOMAXPROCS cores=$(nproc 2>/dev/null || echo '?') load at start: $load_start; cores busy in the second before: $busy_start"
} >"$raw"

echo "bench: latency and throughput, -benchtime=$BENCHTIME -count=$COUNT (about $((COUNT * 40))s)" >&2
"$bin" -test.run='^$' -test.bench='^(BenchmarkCall|BenchmarkCallParallel|BenchmarkLease|BenchmarkToolsList)$' \
  -test.benchtime="$BENCHTIME" -test.count="$COUNT" -test.cpu=2 -test.timeout=15m | tee -a "$raw" | grep -E '^(Benchmark|FAIL|---|panic)' >&2 || true

# The gateway beside the floors of its own parts, side by side (issue 16): latencies by time,
# throughput by turns (three one-second bursts of each a run).
echo "bench: the gateway beside its floors, -benchtime=$BENCHTIME -count=$COUNT" >&2
"$bin" -test.run='^$' -test.bench='^BenchmarkFloors$' \
  -test.benchtime="$BENCHTIME" -test.count="$COUNT" -test.cpu=2 -test.timeout=15m | tee -a "$raw" | grep -E '^(Benchmark|FAIL|---|panic)' >&2 || true
"$bin" -test.run='^$' -test.bench='^BenchmarkFloorsThroughput$' \
  -test.benchtime=1x -test.count="$COUNT" -test.cpu=2 -test.timeout=15m | tee -a "$raw" | grep -E '^(Benchmark|FAIL|---|panic)' >&2 || true

# Android (needs the adb tool; the benchmark skips without it): taps and parallel taps by time,
# screenshots by count (one round of four screenshots takes most of a second).
echo "bench: Android through a private adb server, -count=$COUNT" >&2
"$bin" -test.run='^$' -test.bench='^BenchmarkAndroid$/^op=(tap|tap-parallel)$' \
  -test.benchtime="$BENCHTIME" -test.count="$COUNT" -test.cpu=2 -test.timeout=15m | tee -a "$raw" | grep -E '^(Benchmark|FAIL|---|panic|.*skip)' >&2 || true
"$bin" -test.run='^$' -test.bench='^BenchmarkAndroidScreenshot$' \
  -test.benchtime="${ANDROID_SHOTS:-15}x" -test.count="$COUNT" -test.cpu=2 -test.timeout=15m | tee -a "$raw" | grep -E '^(Benchmark|FAIL|---|panic|.*skip)' >&2 || true

# An arm rig's taps at real speed, by count (a tap takes about a third of a second).
echo "bench: arm rig taps on a digital twin, -benchtime=${ARM_TAPS:-30}x -count=$COUNT" >&2
"$bin" -test.run='^$' -test.bench='^BenchmarkArm$' \
  -test.benchtime="${ARM_TAPS:-30}x" -test.count="$COUNT" -test.cpu=2 -test.timeout=15m | tee -a "$raw" | grep -E '^(Benchmark|FAIL|---|panic)' >&2 || true

# A browser device beside chromedp straight to a browser of its own, by count.
echo "bench: browser device tap and screenshot, -benchtime=${WEB_ROUNDS:-30}x -count=$COUNT" >&2
"$bin" -test.run='^$' -test.bench='^BenchmarkWeb$' \
  -test.benchtime="${WEB_ROUNDS:-30}x" -test.count="$COUNT" -test.cpu=2 -test.timeout=15m | tee -a "$raw" | grep -E '^(Benchmark|FAIL|---|panic|.*skip)' >&2 || true

# A simulated iPhone beside WebDriverAgent's own HTTP API on the same phone, by count, and how
# fast one plugged in or out shows in the registry.
echo "bench: iPhone (simulated usbmuxd and WebDriverAgent) tap, screenshot, plug, -benchtime=${IOS_ROUNDS:-50}x -count=$COUNT" >&2
"$bin" -test.run='^$' -test.bench='^BenchmarkIOS$' \
  -test.benchtime="${IOS_ROUNDS:-50}x" -test.count="$COUNT" -test.cpu=2 -test.timeout=15m | tee -a "$raw" | grep -E '^(Benchmark|FAIL|---|panic)' >&2 || true

# Agent tasks with a scripted model that answers at once: Corral's own time per model call.
echo "bench: agent tasks (scripted model) on a 1080x2400 phone, -benchtime=${AGENT_RUNS:-5}x -count=$COUNT" >&2
"$bin" -test.run='^$' -test.bench='^BenchmarkAgent$' \
  -test.benchtime="${AGENT_RUNS:-5}x" -test.count="$COUNT" -test.cpu=2 -test.timeout=15m | tee -a "$raw" | grep -E '^(Benchmark|FAIL|---|panic)' >&2 || true

echo "bench: 20 browser devices on one node, -benchtime=${WEB_FLEET_ROUNDS:-10}x" >&2
"$bin" -test.run='^$' -test.bench='^BenchmarkWebFleet$' \
  -test.benchtime="${WEB_FLEET_ROUNDS:-10}x" -test.count=1 -test.cpu=2 -test.timeout=15m | tee -a "$raw" | grep -E '^(Benchmark|FAIL|---|panic|.*skip)' >&2 || true

# The console (issue 17): live screens of 20 phones on one node at 2 frames a second (an op is
# a second of wall time), and the grid of 100 devices by a plain HTTP client and by Chromium.
echo "bench: console live screens, 20 phones at 2 frames/s, -benchtime=${CONSOLE_SECONDS:-5}x -count=$COUNT" >&2
"$bin" -test.run='^$' -test.bench='^BenchmarkConsoleFrames$' \
  -test.benchtime="${CONSOLE_SECONDS:-5}x" -test.count="$COUNT" -test.cpu=2 -test.timeout=15m | tee -a "$raw" | grep -E '^(Benchmark|FAIL|---|panic)' >&2 || true
echo "bench: console grid of 100 devices, -benchtime=${CONSOLE_GRIDS:-20}x -count=$COUNT" >&2
"$bin" -test.run='^$' -test.bench='^BenchmarkConsoleGrid$' \
  -test.benchtime="${CONSOLE_GRIDS:-20}x" -test.count="$COUNT" -test.cpu=2 -test.timeout=15m | tee -a "$raw" | grep -E '^(Benchmark|FAIL|---|panic|.*skip)' >&2 || true

# HttpRunner's behaviour parameters beside a plain tap_xy and a screenshot, in turns.
echo "bench: tap_xy with anti_risk and pre_mark_operation, -benchtime=${BEHAVIOUR_ROUNDS:-100}x -count=$COUNT" >&2
"$bin" -test.run='^$' -test.bench='^BenchmarkBehaviour$' \
  -test.benchtime="${BEHAVIOUR_ROUNDS:-100}x" -test.count="$COUNT" -test.cpu=2 -test.timeout=15m | tee -a "$raw" | grep -E '^(Benchmark|FAIL|---|panic)' >&2 || true

# Tap accuracy over 200 twins, each calibrated end to end: once (about 90 s on 2 cores).
echo "bench: arm tap accuracy over 200 twins, once" >&2
"$bin" -test.run='^$' -test.bench='^BenchmarkArmAccuracy$' \
  -test.benchtime=1x -test.count=1 -test.cpu=2 -test.timeout=15m | tee -a "$raw" | grep -E '^(Benchmark|FAIL|---|panic)' >&2 || true

# Aborting and cancelling a running sleep 60, by count: a round's wait for the phone to be
# busy is not timed, so a -benchtime in seconds would run far longer than it says.
echo "bench: abort and cancel of a running sleep, -benchtime=${ABORT_ROUNDS:-200}x -count=$COUNT" >&2
"$bin" -test.run='^$' -test.bench='^BenchmarkAbort$' \
  -test.benchtime="${ABORT_ROUNDS:-200}x" -test.count="$COUNT" -test.cpu=2 -test.timeout=15m | tee -a "$raw" | grep -E '^(Benchmark|FAIL|---|panic)' >&2 || true

# Group leases (issue 19): callers asking for overlapping pairs of a ring of 20 devices on 2 nodes,
# once. MULTILEASE_CALLERS and MULTILEASE_FOR scale it (the issue's figure: 1000 and 30s).
echo "bench: group leases, ${MULTILEASE_CALLERS:-100} callers over overlapping pairs of 20 devices for ${MULTILEASE_FOR:-5s}" >&2
"$bin" -test.run='^$' -test.bench='^BenchmarkMultiLease$' -test.benchtime=1x -test.count=1 -test.cpu=2 -test.timeout=15m \
  -multilease.callers="${MULTILEASE_CALLERS:-100}" -multilease.for="${MULTILEASE_FOR:-5s}" | tee -a "$raw" | grep -E '^(Benchmark|FAIL|---|panic)' >&2 || true

# The list tools in a farm of 10,000 devices on 10 nodes, by count (a round is five calls).
echo "bench: list tools in a farm of 10,000 devices, -benchtime=${LIST_ROUNDS:-200}x -count=$COUNT" >&2
"$bin" -test.run='^$' -test.bench='^BenchmarkLists$' \
  -test.benchtime="${LIST_ROUNDS:-200}x" -test.count="$COUNT" -test.cpu=2 -test.timeout=15m | tee -a "$raw" | grep -E '^(Benchmark|FAIL|---|panic)' >&2 || true

# Edge sites (issue 19): a hub and two leaf sites in process; calls by time, uplink cuts by count
# (a cut and its heal take about 4 s).
echo "bench: edge sites, a call from the hub to a site's device beside a local one, -benchtime=$BENCHTIME -count=$COUNT" >&2
"$bin" -test.run='^$' -test.bench='^BenchmarkLeafCall$' \
  -test.benchtime="$BENCHTIME" -test.count="$COUNT" -test.cpu=2 -test.timeout=15m | tee -a "$raw" | grep -E '^(Benchmark|FAIL|---|panic)' >&2 || true
echo "bench: edge sites, uplink cut and healed, -benchtime=${LEAF_CUTS:-3}x" >&2
"$bin" -test.run='^$' -test.bench='^BenchmarkLeafCut$' \
  -test.benchtime="${LEAF_CUTS:-3}x" -test.count=1 -test.cpu=2 -test.timeout=15m | tee -a "$raw" | grep -E '^(Benchmark|FAIL|---|panic)' >&2 || true

# One process per run: VmHWM is the peak of the whole process.
for i in $(seq 1 "$SCALE_RUNS"); do
  echo "bench: 10,000 devices, run $i of $SCALE_RUNS" >&2
  "$bin" -test.run='^$' -test.bench='^BenchmarkTenThousandDevices$' \
    -test.benchtime=1x -test.count=1 -test.cpu=2 -test.timeout=5m | tee -a "$raw" | grep -E '^(Benchmark|FAIL|---|panic)' >&2 || true
done
# The vision worker (cgo, -tags vision), where OpenCV and Tesseract are installed (make setup).
vision=0
if pkg-config --exists opencv4 tesseract 2>/dev/null; then
  vision=1
  echo "bench: vision worker, OCR and template matching on a 1080×2400 screen, -benchtime=${VISION_ROUNDS:-10}x -count=$COUNT" >&2
  CGO_ENABLED=1 go test -tags vision -run='^$' -bench='^(BenchmarkOCR|BenchmarkMatch)$' -benchtime="${VISION_ROUNDS:-10}x" \
    -count="$COUNT" -cpu=2 -timeout=15m ./vision/worker | tee -a "$raw" | grep -E '^(Benchmark|FAIL|---|panic)' >&2 || true
  # Accuracy over package corpus's labelled screens, once (the same screens every run: the
  # figures do not vary), and the throughput of one and two workers side by side.
  echo "bench: vision accuracy per condition (vision/corpus, 12 screens each; about 2 min)" >&2
  CGO_ENABLED=1 go test -tags vision -run='^$' -bench='^BenchmarkAccuracy$' -benchtime=1x -count=1 -cpu=2 -timeout=15m \
    ./vision/worker | tee -a "$raw" | grep -E '^(Benchmark|FAIL|---|panic)' >&2 || true
  # 80 requests a run: the steady rate (BenchmarkWorkers) leaves out the first and last eight.
  echo "bench: vision throughput, one and two workers, -benchtime=${VISION_REQUESTS:-80}x -count=$COUNT" >&2
  CGO_ENABLED=1 go test -tags vision -run='^$' -bench='^BenchmarkWorkers$' -benchtime="${VISION_REQUESTS:-80}x" -count="$COUNT" \
    -cpu=2 -timeout=15m ./vision/service | tee -a "$raw" | grep -E '^(Benchmark|FAIL|---|panic)' >&2 || true
  # peek on an arm rig's camera frame (a digital twin at real speed) with a real worker.
  echo "bench: peek on an arm rig's camera frame, -benchtime=${ARM_PEEKS:-10}x -count=$COUNT" >&2
  CGO_ENABLED=1 go test -tags vision -run='^$' -bench='^BenchmarkArmPeek$' -benchtime="${ARM_PEEKS:-10}x" -count="$COUNT" \
    -cpu=2 -timeout=15m ./bench | tee -a "$raw" | grep -E '^(Benchmark|FAIL|---|panic)' >&2 || true
else
  echo "bench: vision worker skipped: OpenCV or Tesseract is missing (make setup installs them)" >&2
fi
load_end=$(load)
echo "# load at end: $load_end" >>"$raw"

# The report. Each benchmark line is: name-N iterations (value unit)...; a metric's measured
# value is the median of its runs.
awk -v vision="$vision" -v load_start="$load_start" -v load_end="$load_end" -v busy_start="$busy_start" -v cores="$(nproc 2>/dev/null || echo '?')" '
function median(key,   n, i, j, t, a) {
  n = split(vals[key], a, " ")
  if (n == 0 || vals[key] == "") return ""
  for (i = 2; i <= n; i++) { t = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
  return (n % 2) ? a[(n + 1) / 2] + 0 : (a[n / 2] + a[n / 2 + 1]) / 2
}
function runs(key,   a) { return vals[key] == "" ? 0 : split(vals[key], a, " ") }
function fmtv(v, unit) {
  if (v == "") return "—"
  if (unit == "µs") return (v >= 1000 ? sprintf("%.2f ms", v / 1000) : sprintf("%.0f µs", v))
  if (unit == "calls/s") return sprintf("%.0f calls/s", v)
  if (unit == "s") return sprintf("%.2f s", v)
  if (unit == "MiB") return sprintf("%.0f MiB", v)
  if (unit == "×") return sprintf("%.2f×", v)
  if (unit == "KB") return sprintf("%.0f KB", v)
  if (unit == "n") return sprintf("%.0f", v)
  return sprintf("%.1f %s", v, unit)
}
# row: metric, target text, bench, unit key, limit, "le" or "ge", display unit
function row(metric, target, bench, key, limit, cmp, unit,   v, ok) {
  v = median(bench SUBSEP key)
  if (v == "") { printf "| %s | %s | not measured | FAIL |\n", metric, target; failed++; return }
  ok = (cmp == "le") ? (v <= limit) : (v >= limit)
  if (!ok) failed++
  printf "| %s | %s | %s | %s |\n", metric, target, fmtv(v, unit), ok ? "pass" : "**FAIL**"
}
function opt(v, f) { return v == "" ? "—" : sprintf(f, v) }
function info(label, bench, pre,   p50, p99, cps, cpu, n, al, msgs) {
  p50 = median(bench SUBSEP pre "p50-µs"); p99 = median(bench SUBSEP pre "p99-µs")
  cps = median(bench SUBSEP "calls/s"); cpu = median(bench SUBSEP "cpu-µs/call"); n = runs(bench SUBSEP pre "p50-µs")
  if (cpu == "") cpu = median(bench SUBSEP "cpu-µs/round")

  al = median(bench SUBSEP "allocs/op"); msgs = median(bench SUBSEP "nats-in/call")
  if (pre != "") { cps = ""; cpu = ""; al = ""; msgs = "" } # one of several paths timed side by side: those are per round
  printf "| %s | %s | %s | %s | %s | %s | %s | %d |\n", label, fmtv(p50, "µs"), fmtv(p99, "µs"), opt(cps, "%.0f"), opt(cpu, "%.0f µs"), opt(al, "%.0f"), opt(msgs, "%.1f"), n
}
/^Benchmark/ {
  name = $1; sub(/-[0-9]+$/, "", name)
  for (i = 3; i + 1 <= NF; i += 2) { k = name SUBSEP $(i + 1); vals[k] = vals[k] (vals[k] == "" ? "" : " ") $i }
}
END {
  C = "BenchmarkCall/layer="; P = "BenchmarkCallParallel/transport="; L = "BenchmarkLease/op="; T = "BenchmarkTenThousandDevices"
  AB = "BenchmarkAbort/op="
  print "| metric | target | measured (median) | result |"
  print "|---|---|---|---|"
  F = "BenchmarkFloors/op="
  row("tool call, minimal HTTP client → gateway → NATS → node actor → sim: p50 over the bare mcp-go server’s p50 (" fmtv(median(F "minimal-client" SUBSEP "mcp-floor-p50-µs"), "µs") ") plus a bare NATS request/reply’s (" fmtv(median(F "minimal-client" SUBSEP "nats-floor-p50-µs"), "µs") "), side by side; gateway " fmtv(median(F "minimal-client" SUBSEP "gateway-p50-µs"), "µs"), "≤ 1.25×", F "minimal-client", "ratio", 1.25, "le", "×")
  row("where the excess is: the same task sent by the gateway’s farm client straight to the node (NATS → scheduler and device actors → sim → NATS), p50 over the NATS floor’s; node " fmtv(median(F "minimal-client" SUBSEP "node-p50-µs"), "µs"), "—", F "minimal-client", "node-ratio", 1e9, "le", "×")
  row("the floors chained: the bare mcp-go server making the bare NATS request/reply in its tool (" fmtv(median(F "minimal-client" SUBSEP "chain-floor-p50-µs"), "µs") "), side by side; the gateway’s p50 over it: Corral’s own work on top of both parts", "—", F "minimal-client", "chain-ratio", 1e9, "le", "×")
  row("the same call with mcp-go’s own client: p50 over the bare mcp-go server’s, side by side; gateway " fmtv(median(F "mcp-client" SUBSEP "gateway-p50-µs"), "µs") ", bare " fmtv(median(F "mcp-client" SUBSEP "mcp-floor-p50-µs"), "µs"), "≤ 1.5×", F "mcp-client", "ratio", 1.5, "le", "×")
  row("32 clients (MCP streamable HTTP) over 100 devices (4 nodes × 25): calls/s over 32 clients of the bare mcp-go server, in turns; gateway " fmtv(median("BenchmarkFloorsThroughput" SUBSEP "gateway-calls/s"), "calls/s") ", bare " fmtv(median("BenchmarkFloorsThroughput" SUBSEP "mcp-floor-calls/s"), "calls/s"), "≥ 0.8×", "BenchmarkFloorsThroughput", "ratio", 0.8, "ge", "×")
  row("the same, the floors chained (the bare server making the bare NATS request/reply in its tool, " fmtv(median("BenchmarkFloorsThroughput" SUBSEP "chain-floor-calls/s"), "calls/s") "): their calls/s over the bare server’s, the most the row above can reach on both parts", "—", "BenchmarkFloorsThroughput", "chain-ceiling", 1e9, "le", "×")
  row("the same: the gateway’s calls/s over the floors chained", "—", "BenchmarkFloorsThroughput", "chain-ratio", 1e9, "le", "×")
  row("tools/list of the whole catalog, served by the gateway (minimal HTTP client): p50", "≤ 1 ms", "BenchmarkToolsList/layer=raw-http", "p50-µs", 1000, "le", "µs")
  row("acquire_device on a free device: p99", "≤ 5 ms", L "acquire-free", "p99-µs", 5000, "le", "µs")
  row("hand-over to the next waiter after release_device: p99", "≤ 5 ms", L "handover", "p99-µs", 5000, "le", "µs")
  row("abort_task on a running sleep 60 (MCP HTTP): from abort_task to the answer of the sleep call, p99", "≤ 200 ms", AB "abort_task", "p99-µs", 200000, "le", "µs")
  row("a caller cancels its sleep 60 (mcp-go ends the HTTP stream): from the cancel until the device has run the next call, p99", "≤ 200 ms", AB "cancel", "p99-µs", 200000, "le", "µs")
  row("10,000 sim devices on 10 nodes: all online in the gateway registry", "≤ 5 s", T, "online-s", 5, "le", "s")
  row("the same: peak resident memory of the process (VmHWM)", "≤ 1 GiB", T, "hwm-MiB", 1024, "le", "MiB")
  LS = "BenchmarkLists"
  row("10,000 devices on 10 nodes: the largest list answer (list_available_devices bare, filtered and a middle page; list_leases), structured content plus its text", "≤ 32 KB", LS, "max-KB", 32, "le", "KB")
  row("the same: list answers at the gateway (mcp-go client, HTTP), the slowest list’s p99; list_available_devices p50 " fmtv(median(LS SUBSEP "devices-p50-µs"), "µs") " against get_device_status’s " fmtv(median(LS SUBSEP "status-p50-µs"), "µs") " in turns", "≤ 50 ms", LS, "list-p99-µs", 50000, "le", "µs")
  A = "BenchmarkAndroid/op="
  row("Android tap_xy as input events (MCP HTTP → … → driver → one kept exec:cat stream → sim touchscreen; the sim’s input starts in 150 ms): p50", "≤ 20 ms", A "tap", "http-p50-µs", 20000, "le", "µs")
  row("the same over gadb’s input tap straight to the adb server (which pays input’s start-up), side by side", "≤ 1.3×", A "tap", "ratio-http", 1.3, "le", "×")
  row("Android double tap: the gap from the first lift to the second touch as the phone saw it, shortest of the runs", "≥ 40 ms", A "tap", "gap-min-ms", 40, "ge", "ms")
  row("the same, longest", "≤ 300 ms", A "tap", "gap-max-ms", 300, "le", "ms")
  S = "BenchmarkAndroidScreenshot"
  row("Android screenshot 1080×2400 (MCP HTTP, JPEG): p50 over exec:screencap -p straight through the adb server, the sim encoding its PNG afresh", "≤ 1.0×", S, "ratio-http", 1.0, "le", "×")
  row("the same, in-process MCP", "≤ 1.0×", S, "ratio-inprocess", 1.0, "le", "×")
  row("the same: JPEG delivered", "≤ 300 KB", S, "jpeg-KB", 300, "le", "KB")
  row("Android, 50 devices on one node, 50 parallel callers (MCP HTTP): tap_xy p99 over single-device p50", "≤ 3×", A "tap-parallel/transport=http/devices=50", "p99-ratio", 3, "le", "×")
  row("arm rig (digital twin at real speed): tap, from the call (MCP HTTP) to its answer once the finger is up: p50", "≤ 0.5 s", "BenchmarkArm/op=tap", "p50-µs", 500000, "le", "µs")
  row("browser device (phone profile, 390x844 at 3x): tap_xy through the front door until the page listener sees the touch, over chromedp tapping straight, side by side", "≤ 1.5×", "BenchmarkWeb/op=tap", "ratio", 1.5, "le", "×")
  row("browser device: screenshot (1170x2532) through the front door over chromedp capturing straight", "≤ 1.3×", "BenchmarkWeb/op=screenshot", "ratio", 1.3, "le", "×")
  row("browser device: peek (screenshot with marks and listing) of a 1,000-item page: p50", "≤ 1 s", "BenchmarkWeb/op=peek-1000", "p50-µs", 1000000, "le", "µs")
  row("20 browser devices on one node, 20 callers tapping at once (MCP HTTP): tap_xy p99", "≤ 100 ms", "BenchmarkWebFleet", "p99-µs", 100000, "le", "µs")
  row("the same: p99 over the same taps straight to the drivers (the floor of Chromium here)", "—", "BenchmarkWebFleet", "p99-ratio", 1e9, "le", "×")
  row("the same: memory of an idle browser device (PSS of its processes, 20 sharing)", "≤ 100 MiB", "BenchmarkWebFleet", "idle-MiB/device", 100, "le", "MiB")
  I = "BenchmarkIOS/op="
  row("iPhone (simulated, 750x1334 at 2x): tap_xy through the front door over the same tap posted straight to WebDriverAgent over usbmux, side by side", "≤ 1.3×", I "tap", "ratio", 1.3, "le", "×")
  row("the same over WDA’s tap plus the front door’s floor (tap_xy on a phone inside the node), side by side", "—", I "tap", "floor-ratio", 1e9, "le", "×")
  row("iPhone screenshot (MCP HTTP, JPEG) over WebDriverAgent’s own /screenshot (PNG), side by side", "≤ 1.3×", I "screenshot", "ratio", 1.3, "le", "×")
  row("the same over WDA’s /screenshot plus decoding its PNG and encoding the JPEG (the floor of a PNG delivered as JPEG)", "—", I "screenshot", "floor-ratio", 1e9, "le", "×")
  row("the same: JPEG delivered", "≤ 300 KB", I "screenshot", "jpeg-KB", 300, "le", "KB")
  row("iPhone plugged in (usbmuxd Attached) until online in the node: slowest of the runs", "≤ 1 s", I "plug", "attach-max-ms", 1000, "le", "ms")
  row("iPhone unplugged (usbmuxd Detached) until offline in the node: slowest of the runs", "≤ 1 s", I "plug", "detach-max-ms", 1000, "le", "ms")
  G = "BenchmarkAgent/goal="
  row("agent task, open Settings, open Wi-Fi, turn it off (7 model calls, 3 actions): Corral’s time per model call (all but the model’s own)", "≤ 50 ms", G "toggle-setting", "overhead-ms/call", 50, "le", "ms")
  row("agent task, write a note (5 model calls, 2 actions): the same", "≤ 50 ms", G "type-message", "overhead-ms/call", 50, "le", "ms")
  row("agent task, scroll the Shop to an item and open it (7 model calls, 4 actions): the same", "≤ 50 ms", G "scroll-find", "overhead-ms/call", 50, "le", "ms")
  CF = "BenchmarkConsoleFrames/width="; CG = "BenchmarkConsoleGrid/client="
  row("console live screens: one node, 20 simulated phones watched at 2 frames/s, 360 px (the grid): CPU of the whole process (node, NATS, gateway, the stream’s reader) per frame × the 40 frames/s asked (measured: " fmtv(median(CF "360" SUBSEP "cores"), "cores") " at " fmtv(median(CF "360" SUBSEP "frames/s"), "frames/s") " delivered)", "≤ 1 core", CF "360", "cores-full-rate", 1, "le", "cores")
  row("the same at 720 px (the device page’s width; measured: " fmtv(median(CF "720" SUBSEP "cores"), "cores") " at " fmtv(median(CF "720" SUBSEP "frames/s"), "frames/s") ")", "—", CF "720", "cores-full-rate", 1e9, "le", "cores")
  row("tap_xy with pre_mark_operation (the screen marked and kept) over a plain tap_xy plus a 540 px screenshot, side by side", "≤ 1.2×", "BenchmarkBehaviour", "ratio-pre_mark-to-tap+screenshot", 1.2, "le", "×")
  row("tap_xy with anti_risk over a plain tap_xy, side by side", "≤ 1.2×", "BenchmarkBehaviour", "ratio-anti_risk", 1.2, "le", "×")
  row("console grid of 100 devices (4 nodes × 25), plain HTTP client: the page (" fmtv(median(CG "http" SUBSEP "html-KB"), "KB") ") and its first data, p99", "≤ 1 s", CG "http", "p99-µs", 1000000, "le", "µs")
  row("the same in headless Chromium, until its script has rendered the first data in 100 cards: p99", "≤ 1 s", CG "chromium", "p99-µs", 1000000, "le", "µs")
  M = "BenchmarkMultiLease"
  ml = median(M SUBSEP "callers") " callers asking acquire_device for overlapping pairs (count 2) of 20 devices on 2 nodes for " median(M SUBSEP "seconds") " s"
  row(ml ": partial grants", "0", M, "partial", 0, "le", "n")
  row("the same: a device granted to a caller while another held it", "0", M, "double", 0, "le", "n")
  row("the same: calls answered without saying why", "0", M, "untold", 0, "le", "n")
  row("the same: refusals answered more than 1 s past wait_seconds", "0", M, "late", 0, "le", "n")
  LC = "BenchmarkLeafCall"; LX = "BenchmarkLeafCut"
  row("edge sites: get_screen_size from a hub gateway to a leaf site’s device over the same to a hub node’s: the p50 added, in NATS round trips (a bare one on the hub " fmtv(median(LC SUBSEP "nats-floor-p50-µs"), "µs") "), side by side; site " fmtv(median(LC SUBSEP "site-p50-µs"), "µs") ", local " fmtv(median(LC SUBSEP "local-p50-µs"), "µs"), "≤ 1.5×", LC, "added-ratio", 1.5, "le", "×")
  row("edge sites: an uplink cut noticed by the hub’s gateway (corral_site_up 0), slowest of the cuts", "≤ 3 s", LX, "detect-max-ms", 3000, "le", "ms")
  row("the same: the site’s devices offline at the hub (heartbeats missed), slowest; healed, link and devices back in " fmtv(median(LX SUBSEP "heal-p50-ms"), "ms") " (p50)", "≤ 3 s", LX, "offline-max-ms", 3000, "le", "ms")
  row("arm rig: tap error after calibration, 200 twins × 10 taps aimed through the camera screenshot: p95", "≤ 1.0 mm", "BenchmarkArmAccuracy", "p95-mm", 1.0, "le", "mm")
  row("the same: 7 mm targets hit", "100 %", "BenchmarkArmAccuracy", "hit-%", 100, "ge", "%")
  if (vision) {
    row("vision worker: OCR of a 1080×2400 screenshot (eng+chi_sim): p50", "≤ 1.0 s", "BenchmarkOCR", "p50-ms", 1000, "le", "ms")
    row("vision worker: template match (tap_cv) on a 1080×2400 screenshot, 0.75-1.5×: p50", "≤ 150 ms", "BenchmarkMatch", "p50-ms", 150, "le", "ms")
    row("arm rig: peek on the camera frame (the twin rendering it included, " fmtv(median("BenchmarkArmPeek" SUBSEP "camera-p50-µs"), "µs") " of it): p50", "≤ 1.5 s", "BenchmarkArmPeek", "p50-µs", 1500000, "le", "µs")
    AC = "BenchmarkAccuracy/cond="
    row("vision: OCR word recall, clean screenshots, light (12 screens of vision/corpus)", "≥ 98 %", AC "clean-light", "recall-%", 98, "ge", "%")
    row("vision: OCR word recall, clean screenshots, dark", "≥ 98 %", AC "clean-dark", "recall-%", 98, "ge", "%")
    row("vision: OCR word recall, mild camera frames (rectified to the screen, as the arm takes screenshots)", "≥ 95 %", AC "camera-mild", "recall-%", 95, "ge", "%")
    row("vision: tap_ocr taps inside the right element, clean screenshots (light)", "≥ 99 %", AC "clean-light", "tap-ocr-%", 99, "ge", "%")
    row("vision: tap_ocr taps inside the right element, clean screenshots (dark)", "≥ 99 %", AC "clean-dark", "tap-ocr-%", 99, "ge", "%")
    for (f = 0; f < 4; f++) {
      sc = (f == 0) ? "0.75" : (f == 1) ? "1.00" : (f == 2) ? "1.25" : "1.50"
      row("vision: tap_cv finds an icon cut from the screen, screen at " sc "×", "≥ 99 %", "BenchmarkAccuracy/tap_cv/scale=" sc, "tap-cv-%", 99, "ge", "%")
    }
    # The steady rates (the start and the drain of a batch left out: BenchmarkWorkers says why), and
    # how many cores other processes kept busy meanwhile: two workers need both of 2 cores.
    W = "BenchmarkWorkers/workers="
    w1 = median(W "1" SUBSEP "steady-req/s"); w2 = median(W "2" SUBSEP "steady-req/s")
    b1 = median(W "1" SUBSEP "req/s"); b2 = median(W "2" SUBSEP "req/s")
    oc = median(W "2" SUBSEP "other-cores")
    if (w1 == "" || w2 == "" || b1 == "" || b2 == "") { print "| vision: OCR throughput of two workers over one (a core each) | ≥ 1.8× | not measured | FAIL |"; failed++ }
    else { ok = (w2 / w1 >= 1.8); if (!ok) failed++; printf "| vision: OCR throughput of two workers over one (a core each; steady %.2f and %.2f req/s; whole batch %.2f×; other processes busy %s cores) | ≥ 1.8× | %.2f× | %s |\n", w1, w2, b2 / b1, (oc == "" ? "?" : sprintf("%.2f", oc)), w2 / w1, ok ? "pass" : "**FAIL**" }
  }
  print ""
  F = "BenchmarkFloors/op="
  print "Breakdown of get_screen_size by layer, and the other runs (medians). cpu, allocs and NATS messages are the"
  print "whole process (clients included) per call, per acquire+release round for the lease rows, or per abort or"
  print "cancel (from it to the last answer timed) for the abort rows:"
  print ""
  print "| path | p50 | p99 | calls/s | cpu | allocs | NATS msgs in | runs |"
  print "|---|---|---|---|---|---|---|---|"
  info("side by side: minimal HTTP client → gateway → NATS (in-process) → node → sim", F "minimal-client", "gateway-")
  info("side by side: minimal HTTP client → bare mcp-go no-op server (MCP floor)", F "minimal-client", "mcp-floor-")
  info("side by side: bare NATS request/reply, in-process connections (NATS floor)", F "minimal-client", "nats-floor-")
  info("side by side: the gateway’s farm client → NATS → node → sim (no MCP)", F "minimal-client", "node-")
  info("side by side: minimal HTTP client → bare mcp-go server whose tool makes the bare NATS request/reply (the floors chained)", F "minimal-client", "chain-floor-")
  info("side by side: mcp-go client → gateway", F "mcp-client", "gateway-")
  info("side by side: mcp-go client → bare mcp-go no-op server", F "mcp-client", "mcp-floor-")
  info("tap_xy, plain (beside the behaviour parameters)", "BenchmarkBehaviour", "plain-")
  info("tap_xy with anti_risk", "BenchmarkBehaviour", "anti_risk-")
  info("tap_xy with pre_mark_operation", "BenchmarkBehaviour", "pre_mark-")
  info("bare NATS request/reply on the same server, in-process (floor)", C "nats-floor")
  info("broker.Client.Run: NATS → node actors → sim driver", C "broker-run")
  info("in-process MCP client → gateway MCP server → …", C "mcp-inprocess")
  info("MCP streamable HTTP → … (lease held)", C "mcp-http")
  info("MCP streamable HTTP → … (implicit lease per call)", C "mcp-http-implicit")
  info("bare mcp-go, no-op tool, in-process (MCP floor)", C "mcp-noop-inprocess")
  info("bare mcp-go, no-op tool, streamable HTTP (MCP+HTTP floor)", C "mcp-noop-http")
  info("minimal HTTP client (one POST, no MCP library) → gateway → … (server side only)", C "raw-http")
  info("minimal HTTP client → bare mcp-go no-op server (server-side floor)", C "noop-raw-http")
  info("tools/list (46 KB), minimal HTTP client → gateway", "BenchmarkToolsList/layer=raw-http")
  info("tools/list, mcp-go client over streamable HTTP (the client decodes every schema)", "BenchmarkToolsList/layer=mcp-http")
  info("32 clients, 100 devices, MCP streamable HTTP", P "http/clients=32")
  info("32 clients, 100 devices, in-process MCP", P "inprocess/clients=32")
  info("acquire_device, free device", L "acquire-free")
  info("hand-over after release_device", L "handover")
  info("abort_task → the answer of the aborted sleep (cpu, allocs: the abort and both answers)", AB "abort_task")
  info("the answer of abort_task itself", AB "abort_task", "answer-")
  info("caller cancels its sleep → the device has run the next call (another client)", AB "cancel")
  info("Android tap_xy, MCP streamable HTTP", A "tap", "http-")
  info("Android tap_xy, in-process MCP", A "tap", "inprocess-")
  info("Android `input tap` by gadb straight to the adb server (baseline)", A "tap", "gadb-")
  info("Android screenshot, MCP streamable HTTP", S, "http-")
  info("Android screenshot, in-process MCP", S, "inprocess-")
  info("Android screenshot, max_width 540, MCP streamable HTTP", S, "http-540-")
  info("Android exec:screencap -p straight through the adb server (baseline)", S, "exec-")
  info("Android tap_xy, 50 devices, 50 HTTP callers", A "tap-parallel/transport=http/devices=50")
  info("Android tap_xy, 50 devices, 50 in-process callers", A "tap-parallel/transport=inprocess/devices=50")
  info("Android tap_xy, one device, one HTTP caller (same run)", A "tap-parallel/transport=http/devices=50", "single-")
  info("list_available_devices, 10,000 devices, no arguments (summary and the first 50)", LS, "devices-")
  info("list_available_devices, 10,000 devices, platform + tags + node + free_only, limit 100", LS, "devices-filtered-")
  info("list_available_devices, 10,000 devices, a middle page of 100 (cursor)", LS, "devices-page-")
  info("list_leases, 150 leases on 10 nodes (first 50)", LS, "leases-")
  info("get_device_status in the same farm, in turns with the lists (floor)", LS, "status-")
  info("edge sites, side by side: hub gateway’s farm client → hub NATS → leaf link → site NATS → node → sim", "BenchmarkLeafCall", "site-")
  info("edge sites, side by side: the same to a node on the hub’s NATS", "BenchmarkLeafCall", "local-")
  info("edge sites, side by side: bare NATS request/reply from the hub across the leaf link (leaf floor)", "BenchmarkLeafCall", "leaf-floor-")
  printf "| release_device (in acquire-free) | %s | %s | — | — | — | — | %d |\n", fmtv(median(L "acquire-free" SUBSEP "release-p50-µs"), "µs"), fmtv(median(L "acquire-free" SUBSEP "release-p99-µs"), "µs"), runs(L "acquire-free" SUBSEP "release-p50-µs")
  if (vision) {
    print ""
    print "Vision accuracy by condition (vision/corpus: 12 screens each, every layout, fonts and sizes; camera conditions by internal/lens,"
    print "Mild: each effect alone on the screenshot, then all of them, rectified to the screen and raw). A word is read when a word"
    print "with its text overlaps its box by IoU ≥ 0.5; tap_ocr hits when the middle of the text it finds is inside the element:"
    print ""
    print "| condition | word recall | precision | mean box IoU | tap_ocr hits | words |"
    print "|---|---|---|---|---|---|"
    n = split("clean-light clean-dark chinese small-text bold perspective blur noise glare jpeg camera-mild camera-mild-raw", conds, " ")
    for (i = 1; i <= n; i++) {
      k = "BenchmarkAccuracy/cond=" conds[i]
      printf "| %s | %s | %s | %s | %s | %s |\n", conds[i], opt(median(k SUBSEP "recall-%"), "%.1f %%"), opt(median(k SUBSEP "precision-%"), "%.1f %%"), opt(median(k SUBSEP "IoU"), "%.3f"), opt(median(k SUBSEP "tap-ocr-%"), "%.1f %%"), opt(median(k SUBSEP "words"), "%d")
    }
  }
  print ""
  printf "Group leases (%s): %s grants (%.1f/s), grant latency p50 %s, p99 %s (wait_seconds %s s included); %s refusals, each saying why, the latest %s ms past its wait; %s callers never served in the run.\n", ml, median(M SUBSEP "grants"), median(M SUBSEP "grants/s"), fmtv(median(M SUBSEP "grant-p50-µs"), "µs"), fmtv(median(M SUBSEP "grant-p99-µs"), "µs"), median(M SUBSEP "wait-s"), median(M SUBSEP "told-why"), median(M SUBSEP "refusal-over-wait-ms"), median(M SUBSEP "callers-unserved")
  print ""
  printf "10,000 devices (median of %d processes): all given to their nodes in %s; VmRSS when all online %s; Go heap in use %s; %s goroutines. Then acquire_device on a free device in that farm: p50 %s, p99 %s.\n", runs(T SUBSEP "online-s"), fmtv(median(T SUBSEP "added-s"), "s"), fmtv(median(T SUBSEP "rss-MiB"), "MiB"), fmtv(median(T SUBSEP "heap-MiB"), "MiB"), median(T SUBSEP "goroutines"), fmtv(median(T SUBSEP "acquire-p50-µs"), "µs"), fmtv(median(T SUBSEP "acquire-p99-µs"), "µs")
  print ""
  printf "GOMAXPROCS=2 on %s cores; clients, gateway, NATS and nodes share one process. Cores busy with other work in the second before the run: %s; load average at start %s, at end %s.\n", cores, busy_start, load_start, load_end
  if (busy_start + 0 > 0.25) print "**Other processes were using the CPU when the run started: wall-clock numbers are pessimistic; cpu/call is the steadier figure.**"
  if (failed) printf "\n%d target(s) missed.\n", failed
  exit failed ? 3 : 0
}' "$raw" && status=0 || status=$?

if [ "$status" -ne 0 ] && [ "$status" -ne 3 ]; then
  echo "bench: the report could not be made (see $raw)" >&2
  exit "$status"
fi
if [ "$status" -eq 3 ] && [ "${BENCH_STRICT:-0}" = 1 ]; then
  exit 1
fi
