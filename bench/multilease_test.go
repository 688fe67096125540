package bench

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/sim"
)

// The size of BenchmarkMultiLease. Issue 19 asks for 1,000 callers over 20 devices for 30 s:
// -multilease.callers=1000 -multilease.for=30s (make bench: MULTILEASE_CALLERS, MULTILEASE_FOR).
var (
	mlCallers = flag.Int("multilease.callers", 100, "BenchmarkMultiLease: callers (MCP clients over HTTP)")
	mlDevices = flag.Int("multilease.devices", 20, "BenchmarkMultiLease: devices in the ring, half on each of 2 nodes")
	mlFor     = flag.Duration("multilease.for", 5*time.Second, "BenchmarkMultiLease: how long the callers ask")
	mlWait    = flag.Duration("multilease.wait", 5*time.Second, "BenchmarkMultiLease: each caller's wait_seconds")
	mlHold    = flag.Duration("multilease.hold", 20*time.Millisecond, "BenchmarkMultiLease: how long a caller holds a pair (sleep_ms on one of them)")
)

// ringPhone is a simulated phone of the ring: tagged pair-k for the two pairs it is in.
type ringPhone struct {
	*sim.Phone
	tags []string
}

func (p ringPhone) Info() device.Info {
	i := p.Phone.Info()
	i.Tags = append(slices.Clone(i.Tags), p.tags...)
	return i
}

// BenchmarkMultiLease: callers ask acquire_device for overlapping pairs of a ring of devices
// (count 2, tags pair-k: device k and k+1, a pair crossing nodes at both ends of each node's
// half), each wait_seconds long, for a while; each pair granted is held for one sleep_ms and
// released by its group handle. Reported:
//
//   - partial: grants with other than 2 devices (must be 0);
//   - double: a device granted to a caller while another held it (must be 0), seen by the
//     callers themselves (a device is marked held from its grant's answer until its release
//     is sent, which is inside the node's own lease);
//   - untold: calls that failed without an answer saying why (protocol errors; must be 0);
//   - late: refusals answered more than a second past wait_seconds (must be 0);
//   - grants, told-why (refusals that name the busy devices), callers-unserved (callers never
//     granted in the run), grants/s, and grant latency p50/p99 (from the call to its answer,
//     waiting included), refusals past wait (the latest, over wait_seconds, in ms).
func BenchmarkMultiLease(b *testing.B) {
	n := *mlDevices
	if n < 2 || n%2 != 0 {
		b.Fatalf("-multilease.devices %d: give an even number, at least 2", n)
	}
	f := farmtest.Start(b, farmtest.Options{Nodes: 2, PhonesPerNode: 1, Quiet: true})
	for i := range n {
		f.AddDriver(fmt.Sprintf("n%d", 1+2*i/n), ringPhone{Phone: sim.New(fmt.Sprintf("ring-%02d", i)),
			tags: []string{fmt.Sprintf("pair-%d", i), fmt.Sprintf("pair-%d", (i+n-1)%n)}})
	}
	f.WaitDevices(2+n, "online")
	clients := make([]*client.Client, *mlCallers)
	for i := range clients {
		clients[i] = httpClient(b, f, fmt.Sprintf("ml-%04d", i))
		if _, err := call(clients[i], "list_leases", nil); err != nil { // tools/list and a first call, untimed
			b.Fatal(err)
		}
	}
	for b.Loop() {
		r := runMultiLease(clients, n, *mlFor, *mlWait, *mlHold)
		if len(r.grantLat) == 0 {
			b.Fatalf("no pair was granted: %s", r.firstError)
		}
		b.ReportMetric(float64(len(clients)), "callers")
		b.ReportMetric(mlFor.Seconds(), "seconds")
		b.ReportMetric(mlWait.Seconds(), "wait-s")
		b.ReportMetric(float64(r.partial.Load()), "partial")
		b.ReportMetric(float64(r.double.Load()), "double")
		b.ReportMetric(float64(r.untold.Load()), "untold")
		b.ReportMetric(float64(r.late.Load()), "late")
		b.ReportMetric(float64(len(r.grantLat)), "grants")
		b.ReportMetric(float64(r.toldWhy.Load()), "told-why")
		b.ReportMetric(float64(r.unserved()), "callers-unserved")
		b.ReportMetric(float64(len(r.grantLat))/mlFor.Seconds(), "grants/s")
		b.ReportMetric(float64(r.overWait.Microseconds())/1e3, "refusal-over-wait-ms")
		reportLatency(b, "grant-", r.grantLat)
		if r.firstError != "" {
			b.Logf("first failure: %s", r.firstError)
		}
	}
}

// multiLeaseRun is what one run saw.
type multiLeaseRun struct {
	callers int
	holders []atomic.Int64 // by ring index: the caller (1-based) holding the device, or 0

	partial, double, untold, late, toldWhy atomic.Int64

	mu         sync.Mutex
	grantLat   []time.Duration
	overWait   time.Duration // the latest refusal, past wait_seconds
	served     map[int]bool
	firstError string
}

func (r *multiLeaseRun) unserved() int { return r.callers - len(r.served) }

func runMultiLease(clients []*client.Client, n int, runFor, wait, hold time.Duration) *multiLeaseRun {
	r := &multiLeaseRun{holders: make([]atomic.Int64, n), served: map[int]bool{}, callers: len(clients)}
	end := time.Now().Add(runFor)
	var wg sync.WaitGroup
	for id, c := range clients {
		wg.Go(func() {
			for time.Now().Before(end) {
				r.round(c, id+1, rand.IntN(n), n, wait, hold)
			}
		})
	}
	wg.Wait()
	return r
}

// round asks for pair k once, and holds and releases it if granted.
func (r *multiLeaseRun) round(c *client.Client, caller, k, n int, wait, hold time.Duration) {
	start := time.Now()
	res, err := call(c, "acquire_device", map[string]any{"count": 2, "tags": []any{fmt.Sprintf("pair-%d", k)}, "wait_seconds": wait.Seconds()})
	took := time.Since(start)
	if err != nil {
		msg := err.Error()
		if ce, ok := err.(*callError); !ok || !strings.Contains(ce.msg, "could not lease 2 devices") {
			r.untold.Add(1)
			r.fail(msg)
			return
		}
		r.toldWhy.Add(1)
		if took-wait > time.Second {
			r.late.Add(1)
		}
		r.mu.Lock()
		r.overWait = max(r.overWait, took-wait)
		r.mu.Unlock()
		return
	}
	var out mcp.AcquireResult
	if err := farmtest.Decode(res, &out); err != nil || out.Group == nil {
		r.untold.Add(1)
		r.fail(fmt.Sprintf("acquire_device answer: %v", err))
		return
	}
	g := out.Group
	if len(g.Members) != 2 {
		r.partial.Add(1)
	}
	var mine []int
	for _, m := range g.Members {
		var i int
		if _, err := fmt.Sscanf(m.Serial, "ring-%d", &i); err != nil || i < 0 || i >= n {
			r.partial.Add(1)
			continue
		}
		if !r.holders[i].CompareAndSwap(0, int64(caller)) {
			r.double.Add(1)
			continue
		}
		mine = append(mine, i)
	}
	r.mu.Lock()
	r.grantLat = append(r.grantLat, took)
	r.served[caller] = true
	r.mu.Unlock()
	if _, err := call(c, "sleep_ms", map[string]any{"serial": g.Members[0].Serial, "lease": g.Handle, "milliseconds": hold.Milliseconds()}); err != nil {
		r.fail(err.Error())
	}
	for _, i := range mine {
		r.holders[i].Store(0)
	}
	if _, err := call(c, "release_device", map[string]any{"lease": g.Handle}); err != nil {
		r.untold.Add(1)
		r.fail(err.Error())
	}
}

func (r *multiLeaseRun) fail(msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.firstError == "" {
		r.firstError = msg
	}
}
