package bench

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// BenchmarkTenThousandDevices starts 10 nodes with 1,000 simulated phones each, all at once,
// against a running NATS server and gateway, and reports:
//
//   - online-s: seconds from the start of the nodes until the gateway's registry
//     (broker.Client.Devices, polled every 25 ms) shows all 10,000 devices online;
//   - added-s: seconds until every node had been given its phones;
//   - rss-MiB and hwm-MiB: the process's resident memory (VmRSS) when all are online, and its
//     peak (VmHWM) so far: NATS with JetStream, the gateway, the nodes and the benchmark;
//   - heap-MiB and goroutines: the Go heap in use and the goroutines at that moment;
//   - acquire-p50-µs, acquire-p99-µs: then, acquire_device (and release_device) over HTTP on
//     200 different free devices, as the lease target asks but in a farm of 10,000.
//
// Run it alone in its process and with -benchtime=1x: VmHWM is the process's peak.
func BenchmarkTenThousandDevices(b *testing.B) {
	const nodeCount, perNode = 10, 1000
	const total = nodeCount * perNode
	const limit = 60 * time.Second // give up (and fail) well past the 5 s target
	f := farmtest.StartEmpty(b, farmtest.Options{Quiet: true})
	ids := make([]string, nodeCount)
	for i := range ids {
		ids[i] = fmt.Sprintf("n%d", i+1)
	}
	rounds := 0
	var online, added time.Duration
	for b.Loop() {
		if rounds++; rounds > 1 {
			b.Fatal("run with -benchtime=1x: one farm of 10,000 devices per process")
		}
		start := time.Now()
		if err := f.StartNodes(perNode, ids...); err != nil {
			b.Fatal(err)
		}
		added = time.Since(start)
		for {
			n := 0
			for _, d := range f.Devices() {
				if d.State == broker.StateOnline {
					n++
				}
			}
			if n == total {
				break
			}
			if time.Since(start) > limit {
				b.Fatalf("%d of %d devices online after %s", n, total, limit)
			}
			// Not more often: copying and sorting 10,000 entries takes the farm's CPU too.
			time.Sleep(25 * time.Millisecond)
		}
		online = time.Since(start)
	}
	st, err := procStatus("VmRSS", "VmHWM")
	if err != nil {
		b.Fatal(err)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(online.Seconds(), "online-s")
	b.ReportMetric(added.Seconds(), "added-s")
	b.ReportMetric(float64(st["VmRSS"])/(1<<20), "rss-MiB")
	b.ReportMetric(float64(st["VmHWM"])/(1<<20), "hwm-MiB")
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MiB")
	b.ReportMetric(float64(runtime.NumGoroutine()), "goroutines")

	// Leases in a big farm: acquire_device reads the whole registry to pick a device.
	c := httpClient(b, f, "bench-lease")
	var acqs []time.Duration
	for k := range 200 {
		serial := fmt.Sprintf("n%d-p%d", k%nodeCount+1, k/nodeCount+1)
		t0 := time.Now()
		h := leaseHandle(b, c, map[string]any{"serial": serial})
		acqs = append(acqs, time.Since(t0))
		if _, err := call(c, "release_device", map[string]any{"serial": serial, "lease": h}); err != nil {
			b.Fatal(err)
		}
	}
	reportLatency(b, "acquire-", acqs)
}
