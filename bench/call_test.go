package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// nopTool is the tool whose driver does nothing: the sim phone answers its screen size from
// memory.
const nopTool = "get_screen_size"

// BenchmarkCall is one sequential client calling get_screen_size on a leased device, layer by
// layer, on one farm (1 node, 2 phones):
//
//   - nats-floor: a bare NATS request/reply between two in-process connections of the same
//     embedded server, with a payload the size of a task request. Nothing of Corral's.
//   - broker-run: broker.Client.Run, as the gateway calls it: JSON, NATS request/reply to the
//     node's micro endpoint, scheduler and device actors, the sim driver, the registry mirror.
//   - mcp-inprocess: an MCP client calling the gateway's MCP server in-process: adds mcp-go's
//     JSON-RPC, the tool handler and argument checks, and the result's structured content.
//   - mcp-http: the same over streamable HTTP on loopback, as agents call it (the target).
//   - mcp-http-implicit: mcp-http without a lease: each call takes an implicit lease.
//   - raw-http, noop-raw-http: the gateway (or the bare no-op server) called by a minimal client
//     (one POST of a prepared body, no MCP library): the server side of a call alone.
//   - mcp-noop-inprocess, mcp-noop-http: a bare mcp-go server whose get_screen_size look-alike
//     answers at once, called in-process and over HTTP: the cost of MCP itself (client and
//     server), with nothing of Corral's behind it.
func BenchmarkCall(b *testing.B) {
	f := farmtest.Start(b, farmtest.Options{Nodes: 1, PhonesPerNode: 2, Quiet: true, InProcessNATS: true})
	leased, free := "n1-p1", "n1-p2"
	hc := httpClient(b, f, "bench-http")
	lease := leaseHandle(b, hc, map[string]any{"serial": leased})
	args := map[string]any{"serial": leased, "lease": lease}

	b.Run("layer=nats-floor", func(b *testing.B) { sequential(b, f, natsFloor(b, f)) })
	b.Run("layer=broker-run", func(b *testing.B) {
		gw := f.Gateway().Client
		holder := broker.Holder{Principal: "anonymous", Client: "bench-http"}
		ctx := context.Background()
		sequential(b, f, func() error {
			res, err := gw.Run(ctx, broker.TaskRequest{V: broker.WireVersion, ID: broker.NewTaskID(), Serial: leased,
				Tool: nopTool, Args: json.RawMessage(`{}`), Lease: lease, Holder: holder}, nil)
			if err == nil && res.Outcome != broker.OutcomeSucceeded {
				err = fmt.Errorf("%s: %s %s", res.Outcome, res.Code, res.Error)
			}
			return err
		})
	})
	b.Run("layer=mcp-inprocess", func(b *testing.B) {
		c := inProcessClient(b, f, "bench-inprocess")
		sequential(b, f, func() error { _, err := call(c, nopTool, args); return err })
	})
	b.Run("layer=mcp-http", func(b *testing.B) {
		sequential(b, f, func() error { _, err := call(hc, nopTool, args); return err })
	})
	b.Run("layer=mcp-http-implicit", func(b *testing.B) {
		implicit := map[string]any{"serial": free}
		sequential(b, f, func() error { _, err := call(hc, nopTool, implicit); return err })
	})
	b.Run("layer=raw-http", func(b *testing.B) {
		r := newRawCaller(b, f.Gateway().MCPURL, nopTool, args)
		sequential(b, f, r.call)
	})
	b.Run("layer=noop-raw-http", func(b *testing.B) {
		r := newRawCaller(b, noopURL(b), nopTool, args)
		sequential(b, f, r.call)
	})
	for _, overHTTP := range []bool{false, true} {
		name := map[bool]string{false: "layer=mcp-noop-inprocess", true: "layer=mcp-noop-http"}[overHTTP]
		b.Run(name, func(b *testing.B) {
			c := noopClient(b, overHTTP)
			sequential(b, f, func() error { _, err := call(c, nopTool, args); return err })
		})
	}
}

// sequential times each call of fn in a b.Loop and reports latency percentiles, calls/s, and
// the CPU time and NATS messages of the farm's server per call.
func sequential(b *testing.B, f *farmtest.Farm, fn func() error) {
	b.Helper()
	// Warm up connections, pools and caches outside the timed loop.
	for range 200 {
		if err := fn(); err != nil {
			b.Fatal(err)
		}
	}
	lat := make([]time.Duration, 0, 1<<16)
	msgs := natsCounter(b, f)
	b.ReportAllocs() // of the whole process: clients, gateway, NATS and nodes
	start, cpu0 := time.Now(), cpuTime()
	for b.Loop() {
		t0 := time.Now()
		if err := fn(); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	elapsed, cpu := time.Since(start), cpuTime()-cpu0
	msgs(len(lat))
	reportLatency(b, "", lat)
	reportThroughput(b, len(lat), elapsed, cpu)
}

// BenchmarkCallParallel is 32 MCP clients calling get_screen_size as fast as they can over 100
// devices (4 nodes × 25 phones). Each client leases its own devices (100/32 each) and calls
// them in turn with its lease, so no call waits for another client's. ns/op is wall time per
// call; calls/s counts until the last call returns.
func BenchmarkCallParallel(b *testing.B) {
	const clients, nodeCount, perNode = 32, 4, 25
	f := farmtest.Start(b, farmtest.Options{Nodes: nodeCount, PhonesPerNode: perNode, Quiet: true})
	devs := f.Devices()
	if len(devs) != nodeCount*perNode {
		b.Fatalf("want %d devices, got %d", nodeCount*perNode, len(devs))
	}
	for _, tr := range []struct {
		name string
		dial func(*testing.B, *farmtest.Farm, string) *client.Client
	}{{"http", httpClient}, {"inprocess", inProcessClient}} {
		b.Run(fmt.Sprintf("transport=%s/clients=%d", tr.name, clients), func(b *testing.B) {
			type worker struct {
				c    *client.Client
				args []map[string]any // one per leased device
				lat  []time.Duration
				err  error
			}
			ws := make([]*worker, clients)
			for i := range ws {
				w := &worker{c: tr.dial(b, f, fmt.Sprintf("bench-%d", i))}
				for k := i; k < len(devs); k += clients {
					serial := devs[k].Serial
					h := leaseHandle(b, w.c, map[string]any{"serial": serial})
					w.args = append(w.args, map[string]any{"serial": serial, "lease": h})
				}
				ws[i] = w
			}
			b.Cleanup(func() {
				for _, w := range ws {
					for _, a := range w.args {
						_, _ = call(w.c, "release_device", a)
					}
				}
			})
			run := func(jobs <-chan struct{}) (elapsed time.Duration) {
				var wg sync.WaitGroup
				start := time.Now()
				for _, w := range ws {
					wg.Go(func() {
						k := 0
						for range jobs {
							if w.err != nil {
								continue // drain: the benchmark fails below
							}
							t0 := time.Now()
							_, err := call(w.c, nopTool, w.args[k%len(w.args)])
							w.lat = append(w.lat, time.Since(t0))
							w.err = err
							k++
						}
					})
				}
				wg.Wait()
				return time.Since(start)
			}
			// Warm up: a few calls per client, outside the timed loop.
			warm := make(chan struct{})
			done := make(chan struct{})
			go func() { run(warm); close(done) }()
			for range clients * 20 {
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
			cpu0 := cpuTime()
			go func() { elapsedc <- run(jobs) }()
			for b.Loop() {
				jobs <- struct{}{}
			}
			close(jobs)
			elapsed := <-elapsedc
			cpu := cpuTime() - cpu0
			msgs(b.N)
			var lat []time.Duration
			var errs []string
			for _, w := range ws {
				lat = append(lat, w.lat...)
				if w.err != nil {
					errs = append(errs, w.err.Error())
				}
			}
			if len(errs) > 0 {
				b.Fatalf("%d clients failed: %s", len(errs), strings.Join(errs, "; "))
			}
			reportLatency(b, "", lat)
			reportThroughput(b, len(lat), elapsed, cpu)
		})
	}
}
