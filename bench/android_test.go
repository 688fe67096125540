package bench

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/electricbubble/gadb"
	"github.com/mark3labs/mcp-go/client"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/android/adbsim"
	"github.com/corral-farm/corral/nodes/device"
)

// androidDevices is how many simulated Android devices BenchmarkAndroid puts on its node.
const androidDevices = 50

// BenchmarkAndroid drives simulated Android devices (nodes/android/adbsim, 1080×2400, whose
// `input` takes adbsim.DefaultInputStartup, 150 ms, to start, as a phone's Java start-up does)
// through a private real adb server attached to one node: gateway → NATS → node → Android
// driver → adb server → ADB transport → simulated device. Every path is timed side by side in
// the same loop, on the same device and adb server, so the ratios hold whatever else the
// machine runs:
//
//   - op=tap: tap_xy (x 0.5, y 0.25: pixel 540,600) over MCP streamable HTTP ("http-") and from
//     an in-process MCP client ("inprocess-"): the driver writes the touch to the touchscreen's
//     event device through its persistent adb stream (a finger down for 50 ms, then up). The
//     floor ("events-") writes the same events through an exec:cat stream of its own, straight
//     to the adb server; the baseline ("gadb-") is `input tap 540 600` sent by gadb, which pays
//     the start-up. One b.Loop iteration is one call of each, in rotating order. ratio-http and
//     ratio-inprocess are their p50s over gadb's (the win: target ≤ 1.3), floor-ratio-http
//     over the floor's. Then, over HTTP: down-p50-µs, from the call to the finger landing on
//     the phone (target ≤ 20 ms; the call itself also holds the finger 50 ms), and the gaps
//     the phone sees between a double tap's lift and second touch, gap-min-ms and gap-max-ms
//     over 10 double_tap_xy (target: always inside Android's 40–300 ms).
//   - Screenshots: BenchmarkAndroidScreenshot (android_screenshot_test.go).
//   - op=tap-parallel/transport=…/devices=50: first single-p50-µs, tap_xy on one device by one
//     sequential client; then 50 clients, one per device, tapping as fast as they can. p99 over
//     single-p50 is p99-ratio (target ≤ 3).
//
// It needs the adb tool (Debian: apt-get install adb, or make setup) and skips without it,
// unless CORRAL_REQUIRE_TOOLS is set (make sets it), when it fails.
func BenchmarkAndroid(b *testing.B) {
	needADB(b)
	f := farmtest.StartEmpty(b, farmtest.Options{Quiet: true})
	if err := f.StartNodes(0, "n1"); err != nil {
		b.Fatal(err)
	}
	adb, devs := f.StartAndroid("n1", androidDevices)
	farmtest.Eventually(b, 20*time.Second, func() bool {
		for _, d := range devs {
			if e, ok := f.Gateway().Client.Device(d.Serial()); !ok || e.State != broker.StateOnline {
				return false
			}
		}
		return true
	}, "%d android devices online", len(devs))
	g := gadbDevice(b, adb.Addr(), devs[0].Serial())
	adbCPU := adbServerCPU(adb.Addr())

	hc := httpClient(b, f, "bench-android-http")
	ic := inProcessClient(b, f, "bench-android-inprocess")
	serial := devs[0].Serial()
	args := map[string]any{"serial": serial, "lease": leaseHandle(b, hc, map[string]any{"serial": serial})}
	release := sync.OnceFunc(func() { _, _ = call(hc, "release_device", args) })
	b.Cleanup(release)
	tapArgs := withArgs(args, "x", 0.5, "y", 0.25)

	b.Run("op=tap", func(b *testing.B) {
		dev := devs[0]
		// The driver sends no command for a tap: the touch lands through the event stream.
		before, t0 := len(dev.Commands()), time.Now()
		if _, err := call(hc, "tap_xy", tapArgs); err != nil {
			b.Fatal(err)
		}
		farmtest.Eventually(b, 5*time.Second, func() bool { return len(tapsSince(dev, t0)) == 1 }, "the tap lands")
		if cmds, at := dev.Commands()[before:], tapsSince(dev, t0)[0].Point; at != (device.Point{X: 540, Y: 600}) ||
			slices.ContainsFunc(cmds, func(c string) bool { return strings.HasPrefix(c, "input ") }) {
			b.Fatalf("tap_xy sent %q and landed at %v; want events at 540,600", cmds, at)
		}
		floor := eventFloor(b, adb.Addr(), serial)
		lat := sideBySide(b, 10, dev, adbCPU, "", []path{
			{"http", func() error { _, err := call(hc, "tap_xy", tapArgs); return err }},
			{"inprocess", func() error { _, err := call(ic, "tap_xy", tapArgs); return err }},
			{"events", floor.tap},
			{"gadb", func() error { _, err := g.RunShellCommand("input", "tap", "540", "600"); return err }},
		})
		if f := p50(lat[2]); f > 0 {
			b.ReportMetric(float64(p50(lat[0]))/float64(f), "floor-ratio-http")
		}
		b.ReportMetric(float64(touchDown(b, hc, dev, tapArgs, 20).Microseconds()), "down-p50-µs")
		lo, hi := doubleTapGaps(b, hc, dev, tapArgs, 10)
		b.ReportMetric(float64(lo.Microseconds())/1000, "gap-min-ms")
		b.ReportMetric(float64(hi.Microseconds())/1000, "gap-max-ms")
	})

	release() // the parallel runs lease every device, this one too
	for _, tr := range []struct {
		name string
		dial func(*testing.B, *farmtest.Farm, string) *client.Client
	}{{"http", httpClient}, {"inprocess", inProcessClient}} {
		b.Run(fmt.Sprintf("op=tap-parallel/transport=%s/devices=%d", tr.name, len(devs)), func(b *testing.B) {
			benchParallelTaps(b, f, devs, adbCPU, tr.dial)
		})
	}
}

// needADB skips b without the adb tool, or fails it when CORRAL_REQUIRE_TOOLS is set (make
// sets it).
func needADB(b *testing.B) {
	b.Helper()
	if _, err := exec.LookPath("adb"); err != nil {
		if os.Getenv("CORRAL_REQUIRE_TOOLS") != "" {
			b.Fatal(b.Name() + " needs the adb tool, and CORRAL_REQUIRE_TOOLS is set: run make setup (Debian: apt-get install adb)")
		}
		b.Skip(b.Name() + " needs the adb tool (/usr/bin/adb; Debian: apt-get install adb, or make setup): skipped")
	}
}

// path is one way of doing the same thing, timed side by side with the others.
type path struct {
	name string
	fn   func() error
}

// sideBySide warms each path up, then runs one call of every path per b.Loop iteration (the
// order rotating each iteration) and reports each path's latency percentiles under its name,
// and each but the last one's p50 over the last one's as ratio-NAME. Unless want is "", it
// checks that the device's last command starts with want. It returns each path's latencies.
func sideBySide(b *testing.B, warm int, dev *adbsim.Device, adbCPU func() time.Duration, want string, paths []path) [][]time.Duration {
	b.Helper()
	for _, p := range paths {
		for range warm {
			if err := p.fn(); err != nil {
				b.Fatalf("%s: %v", p.name, err)
			}
		}
		if cmds := dev.Commands(); want != "" && (len(cmds) == 0 || !strings.HasPrefix(cmds[len(cmds)-1], want)) {
			b.Fatalf("%s: the device's last command does not start with %q (last 3: %q)", p.name, want, cmds[max(0, len(cmds)-3):])
		}
	}
	adb0 := adbCPU()
	lat, rounds := inTurns(b, paths)
	if adb := adbCPU() - adb0; adb > 0 && rounds > 0 {
		b.ReportMetric(float64(adb.Microseconds())/float64(rounds), "adb-server-cpu-µs/round")
	}
	base := p50(lat[len(lat)-1])
	for i, p := range paths {
		reportLatency(b, p.name+"-", lat[i])
		if i < len(paths)-1 && base > 0 {
			b.ReportMetric(float64(p50(lat[i]))/float64(base), "ratio-"+p.name)
		}
	}
	return lat
}

// benchParallelTaps measures tap_xy on one device by one sequential client (single-p50-µs),
// then with one client per device, all tapping at once, and reports the parallel latencies,
// calls/s and p99 over the single-device p50 (p99-ratio).
func benchParallelTaps(b *testing.B, f *farmtest.Farm, devs []*adbsim.Device, adbCPU func() time.Duration, dial func(*testing.B, *farmtest.Farm, string) *client.Client) {
	type worker struct {
		c    *client.Client
		args map[string]any
		lat  []time.Duration
		err  error
	}
	ws := make([]*worker, len(devs))
	for i, d := range devs {
		c := dial(b, f, fmt.Sprintf("bench-android-%d", i))
		h := leaseHandle(b, c, map[string]any{"serial": d.Serial()})
		ws[i] = &worker{c: c, args: map[string]any{"serial": d.Serial(), "lease": h, "x": 0.5, "y": 0.25}}
	}
	b.Cleanup(func() {
		for _, w := range ws {
			_, _ = call(w.c, "release_device", map[string]any{"serial": w.args["serial"], "lease": w.args["lease"]})
		}
	})
	// The single-device p50, in the same farm, just before.
	var single []time.Duration
	for i := range 120 {
		t0 := time.Now()
		if _, err := call(ws[0].c, "tap_xy", ws[0].args); err != nil {
			b.Fatal(err)
		}
		if i >= 20 { // the first ones warm up
			single = append(single, time.Since(t0))
		}
	}
	run := func(jobs <-chan struct{}) time.Duration {
		var wg sync.WaitGroup
		start := time.Now()
		for _, w := range ws {
			wg.Go(func() {
				for range jobs {
					if w.err != nil {
						continue // drain: the benchmark fails below
					}
					t0 := time.Now()
					_, w.err = call(w.c, "tap_xy", w.args)
					w.lat = append(w.lat, time.Since(t0))
				}
			})
		}
		wg.Wait()
		return time.Since(start)
	}
	warm, done := make(chan struct{}), make(chan struct{})
	go func() { run(warm); close(done) }()
	for range len(ws) * 5 {
		warm <- struct{}{}
	}
	close(warm)
	<-done
	for _, w := range ws {
		if w.err != nil {
			b.Fatal(w.err)
		}
		w.lat = w.lat[:0]
	}

	jobs := make(chan struct{})
	elapsedc := make(chan time.Duration, 1)
	msgs := natsCounter(b, f)
	b.ReportAllocs()
	cpu0, adb0 := cpuTime(), adbCPU()
	go func() { elapsedc <- run(jobs) }()
	for b.Loop() {
		jobs <- struct{}{}
	}
	close(jobs)
	elapsed := <-elapsedc
	cpu := cpuTime() - cpu0
	if adb := adbCPU() - adb0; adb > 0 && b.N > 0 {
		b.ReportMetric(float64(adb.Microseconds())/float64(b.N), "adb-server-cpu-µs/call")
	}
	msgs(b.N)
	var lat []time.Duration
	var errs []string
	busy := 0
	for _, w := range ws {
		lat = append(lat, w.lat...)
		if len(w.lat) > 0 {
			busy++
		}
		if w.err != nil {
			errs = append(errs, w.err.Error())
		}
	}
	if len(errs) > 0 {
		b.Fatalf("%d clients failed: %s", len(errs), strings.Join(errs, "; "))
	}
	reportLatency(b, "", lat)
	reportLatency(b, "single-", single)
	reportThroughput(b, len(lat), elapsed, cpu)
	b.ReportMetric(float64(busy), "devices-tapped")
	slices.Sort(lat)
	if s := p50(single); s > 0 {
		b.ReportMetric(float64(percentile(lat, 0.99))/float64(s), "p99-ratio")
	}
}

// p50 is the median of lat.
func p50(lat []time.Duration) time.Duration {
	s := slices.Clone(lat)
	slices.Sort(s)
	return percentile(s, 0.5)
}

// withArgs returns a copy of args with the key-value pairs kv added.
func withArgs(args map[string]any, kv ...any) map[string]any {
	out := make(map[string]any, len(args)+len(kv)/2)
	for k, v := range args {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

// gadbDevice returns the device serial of the adb server at addr as gadb sees it.
func gadbDevice(b *testing.B, addr, serial string) gadb.Device {
	b.Helper()
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		b.Fatal(err)
	}
	port, err := strconv.Atoi(portStr)
	if err != nil {
		b.Fatal(err)
	}
	c, err := gadb.NewClientWith(host, port)
	if err != nil {
		b.Fatal(err)
	}
	devices, err := c.DeviceList()
	if err != nil {
		b.Fatal(err)
	}
	for _, d := range devices {
		if d.Serial() == serial {
			return d
		}
	}
	b.Fatalf("gadb does not list %s at %s", serial, addr)
	return gadb.Device{}
}

// adbExec runs one device service (e.g. "exec:screencap -p") through the adb server at addr
// and returns everything it writes: what `adb -s SERIAL exec-out …` does, in the adb host
// protocol ("%04x"-prefixed requests, OKAY or FAIL, then the stream until the server closes it).
func adbExec(addr, serial, svc string) ([]byte, error) {
	c, err := net.DialTimeout("tcp", addr, callTimeout)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if err := c.SetDeadline(time.Now().Add(callTimeout)); err != nil {
		return nil, err
	}
	for _, req := range []string{"host:transport:" + serial, svc} {
		if _, err := fmt.Fprintf(c, "%04x%s", len(req), req); err != nil {
			return nil, err
		}
		var status [4]byte
		if _, err := io.ReadFull(c, status[:]); err != nil {
			return nil, err
		}
		if string(status[:]) != "OKAY" {
			msg, _ := io.ReadAll(io.LimitReader(c, 1024))
			return nil, fmt.Errorf("adb server answered %s to %q: %s", status[:], req, msg)
		}
	}
	return io.ReadAll(c)
}

// adbServerCPU returns a function giving the CPU time the adb server at addr (a separate
// process) has used so far, read from /proc (USER_HZ 100); it gives 0 where that cannot be read.
func adbServerCPU(addr string) func() time.Duration {
	_, port, _ := net.SplitHostPort(addr)
	want := "-L\x00tcp:" + port + "\x00"
	pid := ""
	if ents, err := os.ReadDir("/proc"); err == nil {
		for _, e := range ents {
			if cmd, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && strings.Contains(string(cmd), want) && strings.Contains(string(cmd), "fork-server") {
				pid = e.Name()
				break
			}
		}
	}
	return func() time.Duration {
		if pid == "" {
			return 0
		}
		stat, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil {
			return 0
		}
		_, rest, ok := strings.Cut(string(stat), ") ") // the command may hold spaces
		f := strings.Fields(rest)
		if !ok || len(f) < 13 {
			return 0
		}
		utime, _ := strconv.ParseInt(f[11], 10, 64)
		stime, _ := strconv.ParseInt(f[12], 10, 64)
		return time.Duration(utime+stime) * 10 * time.Millisecond
	}
}

// tapsSince returns the taps dev recorded going down after t0 (of the last 64 it keeps).
func tapsSince(dev *adbsim.Device, t0 time.Time) []adbsim.Tap {
	taps := dev.Taps()
	i := len(taps)
	for i > 0 && taps[i-1].At.After(t0) {
		i--
	}
	return taps[i:]
}

// touchDown calls tap_xy n times over c and returns the median time from each call to its
// finger landing on dev (the touch-down time the device records).
func touchDown(b *testing.B, c *client.Client, dev *adbsim.Device, args map[string]any, n int) time.Duration {
	b.Helper()
	var lat []time.Duration
	for range n {
		t0 := time.Now()
		if _, err := call(c, "tap_xy", args); err != nil {
			b.Fatal(err)
		}
		farmtest.Eventually(b, 5*time.Second, func() bool { return len(tapsSince(dev, t0)) == 1 }, "the tap lands")
		lat = append(lat, tapsSince(dev, t0)[0].At.Sub(t0))
	}
	return p50(lat)
}

// doubleTapGaps calls double_tap_xy n times over c and returns the least and the most time dev
// saw between a double tap's first lift and its second touch.
func doubleTapGaps(b *testing.B, c *client.Client, dev *adbsim.Device, args map[string]any, n int) (lo, hi time.Duration) {
	b.Helper()
	for i := range n {
		t0 := time.Now()
		if _, err := call(c, "double_tap_xy", args); err != nil {
			b.Fatal(err)
		}
		farmtest.Eventually(b, 5*time.Second, func() bool { return len(tapsSince(dev, t0)) == 2 }, "both taps land")
		taps := tapsSince(dev, t0)
		gap := taps[1].At.Sub(taps[0].Up)
		if i == 0 || gap < lo {
			lo = gap
		}
		hi = max(hi, gap)
	}
	return lo, hi
}

// eventStream is the floor of a tap written as input events: one exec:cat stream into the
// simulated touchscreen (/dev/input/event2, 0–4095 on both axes, 24-byte events), opened once
// straight through the adb server, and per tap the reports the driver writes: a finger down at
// 540,600 for 50 ms, then up.
type eventStream struct {
	c  net.Conn
	id int32
}

func eventFloor(b *testing.B, addr, serial string) *eventStream {
	b.Helper()
	c, err := net.DialTimeout("tcp", addr, callTimeout)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = c.Close() })
	for _, req := range []string{"host:transport:" + serial, "exec:cat > /dev/input/event2"} {
		if _, err := fmt.Fprintf(c, "%04x%s", len(req), req); err != nil {
			b.Fatal(err)
		}
		var status [4]byte
		if _, err := io.ReadFull(c, status[:]); err != nil || string(status[:]) != "OKAY" {
			b.Fatalf("adb server answered %q, %v to %q", status[:], err, req)
		}
	}
	return &eventStream{c: c, id: 40000}
}

func (s *eventStream) tap() error {
	const (
		evSyn, evKey, evAbs                             = 0, 1, 3
		slot, major, x, y, tracking, pressure, btnTouch = 0x2f, 0x30, 0x35, 0x36, 0x39, 0x3a, 0x14a
	)
	s.id++
	report := func(evs ...[3]int32) []byte {
		var out []byte
		for _, e := range append(evs, [3]int32{evSyn, 0, 0}) {
			ev := make([]byte, 24) // a zero struct timeval, then type, code, value
			binary.LittleEndian.PutUint16(ev[16:], uint16(e[0]))
			binary.LittleEndian.PutUint16(ev[18:], uint16(e[1]))
			binary.LittleEndian.PutUint32(ev[20:], uint32(e[2]))
			out = append(out, ev...)
		}
		return out
	}
	// 540,600 of 1080×2400 on the 0–4095 panel.
	if _, err := s.c.Write(report([3]int32{evAbs, slot, 0}, [3]int32{evAbs, tracking, s.id}, [3]int32{evKey, btnTouch, 1},
		[3]int32{evAbs, x, 2049}, [3]int32{evAbs, y, 1024}, [3]int32{evAbs, pressure, 127}, [3]int32{evAbs, major, 127})); err != nil {
		return err
	}
	time.Sleep(10 * time.Millisecond) // the finger rests, as the driver's does (tapHold)
	_, err := s.c.Write(report([3]int32{evAbs, tracking, -1}, [3]int32{evKey, btnTouch, 0}))
	return err
}
