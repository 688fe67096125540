package bench

import (
	"context"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/internal/farmtest"
)

// BenchmarkLease times the lease tools over streamable HTTP on one farm (1 node, 1 phone). A
// round is one acquire and one release; cpu-µs/round and allocs/op are the whole process's.
//
//   - acquire-free: acquire_device on a free device (p50/p99), then release_device (reported
//     as release-p50-µs/release-p99-µs).
//   - handover: a client holds the device; another waits for it in acquire_device with
//     wait_seconds; once the node shows the waiter queued, the holder calls release_device.
//     The hand-over time runs from the start of release_device to the waiter's answer, so it
//     includes the release call's own trip to the node. Then the two swap roles. A round also
//     holds the benchmark's polling of the node's queue (list of leases over NATS).
func BenchmarkLease(b *testing.B) {
	f := farmtest.Start(b, farmtest.Options{Nodes: 1, PhonesPerNode: 1, Quiet: true})
	serial := f.Devices()[0].Serial

	b.Run("op=acquire-free", func(b *testing.B) {
		c := httpClient(b, f, "bench-lease")
		acquire := map[string]any{"serial": serial}
		round := func() (acq, rel time.Duration) {
			t0 := time.Now()
			h := leaseHandle(b, c, acquire)
			t1 := time.Now()
			if _, err := call(c, "release_device", map[string]any{"serial": serial, "lease": h}); err != nil {
				b.Fatal(err)
			}
			return t1.Sub(t0), time.Since(t1)
		}
		for range 100 {
			round()
		}
		var acqs, rels []time.Duration
		b.ReportAllocs()
		cpu0 := cpuTime()
		for b.Loop() {
			a, r := round()
			acqs, rels = append(acqs, a), append(rels, r)
		}
		reportCPU(b, cpuTime()-cpu0, len(acqs))
		reportLatency(b, "", acqs)
		reportLatency(b, "release-", rels)
	})

	b.Run("op=handover", func(b *testing.B) {
		type answer struct {
			res *mcpgo.CallToolResult
			err error
			at  time.Time
		}
		holder, waiter := httpClient(b, f, "bench-a"), httpClient(b, f, "bench-b")
		h := leaseHandle(b, holder, map[string]any{"serial": serial})
		gw := f.Gateway().Client
		wait := map[string]any{"serial": serial, "wait_seconds": 10}
		round := func() (handover, rel time.Duration) {
			got := make(chan answer, 1)
			go func() {
				res, err := call(waiter, "acquire_device", wait)
				got <- answer{res, err, time.Now()}
			}()
			// Until the node has the waiter in the queue (this polling is the benchmark's,
			// not the system's: the hand-over itself is event driven).
			deadline := time.Now().Add(10 * time.Second)
			for queued := false; !queued; {
				ls, err := gw.Leases(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				queued = len(ls) == 1 && ls[0].QueueLen == 1
				if !queued && time.Now().After(deadline) {
					b.Fatalf("the waiter is not queued after 10s: %+v", ls)
				}
			}
			t0 := time.Now()
			if _, err := call(holder, "release_device", map[string]any{"serial": serial, "lease": h}); err != nil {
				b.Fatal(err)
			}
			rel = time.Since(t0)
			a := <-got
			if a.err != nil {
				b.Fatal(a.err)
			}
			h = handleOf(b, a.res)
			holder, waiter = waiter, holder
			return a.at.Sub(t0), rel
		}
		for range 50 {
			round()
		}
		var hands, rels []time.Duration
		b.ReportAllocs()
		cpu0 := cpuTime()
		for b.Loop() {
			hd, r := round()
			hands, rels = append(hands, hd), append(rels, r)
		}
		reportCPU(b, cpuTime()-cpu0, len(hands))
		reportLatency(b, "", hands)
		reportLatency(b, "release-", rels)
		if _, err := call(holder, "release_device", map[string]any{"serial": serial, "lease": h}); err != nil {
			b.Fatal(err)
		}
	})
}
