package bench

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// BenchmarkFloors holds the gateway against the floors of its own parts, side by side in one
// run (issue 16): each iteration calls every path once, in rotating order, so a busy machine
// slows them alike. The farm's gateway and node reach NATS in-process, as `corral up`
// connects them, and so does the NATS floor.
//
//   - op=minimal-client: get_screen_size by a minimal HTTP client (one POST) to the gateway,
//     to a bare mcp-go server whose look-alike tool answers at once (mcp floor), and a bare
//     NATS request/reply (nats floor). ratio = gateway p50 / (mcp floor p50 + nats floor p50),
//     goal ≤ 1.25. Beside them, the same task sent by the gateway's farm client straight to
//     the node (node: NATS → node's actors → sim → NATS, no MCP); node-ratio = its p50 over
//     the NATS floor's, which says how much of the gateway's excess is the node's. And the
//     floors chained (chain-floor: the bare server's tool makes the bare NATS request/reply);
//     chain-ratio = gateway p50 / chain p50, Corral's own work on top of both parts.
//   - op=mcp-client: the same call by mcp-go's own client, to the gateway and to the bare
//     server. ratio = gateway p50 / bare p50, goal ≤ 1.5.
func BenchmarkFloors(b *testing.B) {
	f := farmtest.Start(b, farmtest.Options{Nodes: 1, PhonesPerNode: 1, Quiet: true, InProcessNATS: true})
	serial := f.Devices()[0].Serial
	hc := httpClient(b, f, "bench-floors")
	args := map[string]any{"serial": serial, "lease": leaseHandle(b, hc, map[string]any{"serial": serial})}

	b.Run("op=minimal-client", func(b *testing.B) {
		gw := newRawCaller(b, f.Gateway().MCPURL, nopTool, args)
		bare := newRawCaller(b, noopURL(b), nopTool, args)
		chain := newRawCaller(b, chainURL(b, f), nopTool, args)
		lat := interleave(b, []path{{"gateway", gw.call}, {"mcp-floor", bare.call}, {"nats-floor", natsFloor(b, f)},
			{"node", nodeTask(b, f, serial, args["lease"].(string))}, {"chain-floor", chain.call}})
		ratio := float64(p50(lat[0])) / float64(p50(lat[1])+p50(lat[2]))
		b.ReportMetric(ratio, "ratio")
		b.ReportMetric(float64(p50(lat[3]))/float64(p50(lat[2])), "node-ratio")
		b.ReportMetric(float64(p50(lat[0]))/float64(p50(lat[4])), "chain-ratio")
	})
	b.Run("op=mcp-client", func(b *testing.B) {
		bare := noopClient(b, true)
		lat := interleave(b, []path{
			{"gateway", func() error { _, err := call(hc, nopTool, args); return err }},
			{"mcp-floor", func() error { _, err := call(bare, nopTool, args); return err }},
		})
		b.ReportMetric(float64(p50(lat[0]))/float64(p50(lat[1])), "ratio")
	})
}

// BenchmarkFloorsThroughput is 32 mcp-go clients over streamable HTTP calling get_screen_size
// as fast as they can for a second over 100 devices (4 nodes × 25), then 32 clients of a bare
// mcp-go server, then 32 of the floors chained (the bare server making a bare NATS
// request/reply in its tool), taking turns three times in each b.Loop iteration (run it with
// -benchtime 1x). ratio = the gateway's median calls/s over the bare server's, goal ≥ 0.8;
// chain-ceiling = the chained floors' over the bare server's, the most that ratio can reach
// with both parts; chain-ratio = the gateway's over the chained floors'.
func BenchmarkFloorsThroughput(b *testing.B) {
	const nodes, perNode = 4, 25
	f := farmtest.Start(b, farmtest.Options{Nodes: nodes, PhonesPerNode: perNode, Quiet: true, InProcessNATS: true})
	args := map[string]any{"serial": "n1-p1"}
	const clients = 32
	gw, bare, chain := make([]func() error, clients), make([]func() error, clients), make([]func() error, clients)
	devs, noop, chained := f.Devices(), noopURL(b), chainURL(b, f)
	for i := range clients {
		name := fmt.Sprintf("bench-floors-%d", i)
		c := httpClient(b, f, name)
		var mine []map[string]any // 3 or 4 devices, leased by this client alone
		for k := i; k < len(devs); k += clients {
			mine = append(mine, map[string]any{"serial": devs[k].Serial, "lease": leaseHandle(b, c, map[string]any{"serial": devs[k].Serial})})
		}
		n := 0
		gw[i] = func() error { n++; _, err := call(c, nopTool, mine[n%len(mine)]); return err }
		nc := httpClientAt(b, noop, name)
		bare[i] = func() error { _, err := call(nc, nopTool, args); return err }
		cc := httpClientAt(b, chained, name)
		chain[i] = func() error { _, err := call(cc, nopTool, args); return err }
	}
	var gwRates, bareRates, chainRates []float64
	for b.Loop() {
		for range 3 {
			gwRates = append(gwRates, burst(b, gw, time.Second))
			bareRates = append(bareRates, burst(b, bare, time.Second))
			chainRates = append(chainRates, burst(b, chain, time.Second))
		}
	}
	g, m, c := median(gwRates), median(bareRates), median(chainRates)
	b.ReportMetric(g, "gateway-calls/s")
	b.ReportMetric(m, "mcp-floor-calls/s")
	b.ReportMetric(c, "chain-floor-calls/s")
	b.ReportMetric(g/m, "ratio")
	b.ReportMetric(c/m, "chain-ceiling")
	b.ReportMetric(g/c, "chain-ratio")
}

// interleave warms every path up, times them in turns (inTurns) and reports each path's
// latency percentiles under its name. It returns the latencies, path by path.
func interleave(b *testing.B, paths []path) [][]time.Duration {
	b.Helper()
	for _, p := range paths {
		for range 200 {
			if err := p.fn(); err != nil {
				b.Fatalf("%s: %v", p.name, err)
			}
		}
	}
	lat, _ := inTurns(b, paths)
	for i, p := range paths {
		reportLatency(b, p.name+"-", lat[i])
	}
	return lat
}

// inTurns calls each path once per b.Loop iteration, the order rotating, and returns each
// path's latencies and the rounds run; it reports the process's CPU time per round.
func inTurns(b *testing.B, paths []path) ([][]time.Duration, int) {
	b.Helper()
	lat := make([][]time.Duration, len(paths))
	b.ReportAllocs()
	cpu0, rounds := cpuTime(), 0
	for b.Loop() {
		for k := range paths {
			i := (k + rounds) % len(paths)
			t0 := time.Now()
			if err := paths[i].fn(); err != nil {
				b.Fatalf("%s: %v", paths[i].name, err)
			}
			lat[i] = append(lat[i], time.Since(t0))
		}
		rounds++
	}
	reportCPU(b, cpuTime()-cpu0, rounds)
	return lat, rounds
}

// burst runs every caller in a loop of its own for d and returns the calls made per second.
func burst(b *testing.B, callers []func() error, d time.Duration) float64 {
	b.Helper()
	var calls atomic.Int64
	var failed atomic.Value
	var wg sync.WaitGroup
	stop := time.Now().Add(d)
	start := time.Now()
	for _, fn := range callers {
		wg.Go(func() {
			for time.Now().Before(stop) {
				if err := fn(); err != nil {
					failed.Store(err)
					return
				}
				calls.Add(1)
			}
		})
	}
	wg.Wait()
	if err, ok := failed.Load().(error); ok {
		b.Fatal(err)
	}
	return float64(calls.Load()) / time.Since(start).Seconds()
}

// natsFloor is a bare NATS request/reply between two in-process connections of the farm's
// server, with payloads the size of a get_screen_size task's request and result, on a subject
// of its own (two floors in one farm must not both answer).
func natsFloor(b *testing.B, f *farmtest.Farm) func() error {
	b.Helper()
	conn := func(name string) *nats.Conn {
		nc, err := nats.Connect(f.URL, nats.Name(name), nats.InProcessServer(f.NATS))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(nc.Close)
		return nc
	}
	responder, requester := conn("bench-responder"), conn("bench-requester")
	reply := []byte(`{"v":1,"id":"t_0123456789","serial":"n1-p1","node":"n1","tool":"get_screen_size","outcome":"succeeded","data":{"width":1080,"height":2400,"message":"screen size: 1080x2400 pixels"}}`)
	req := []byte(`{"v":1,"id":"t_0123456789","serial":"n1-p1","tool":"get_screen_size","args":{},"lease":"lease_0123456789abcdef","holder":{"principal":"anonymous","client":"bench"}}`)
	subject := "bench.floor." + strings.TrimPrefix(nats.NewInbox(), "_INBOX.")
	if _, err := responder.Subscribe(subject, func(m *nats.Msg) { _ = m.Respond(reply) }); err != nil {
		b.Fatal(err)
	}
	if err := responder.Flush(); err != nil {
		b.Fatal(err)
	}
	return func() error { _, err := requester.Request(subject, req, callTimeout); return err }
}

// nodeTask sends get_screen_size under the lease by the gateway's own farm client, as the
// gateway does once it has decoded the call.
func nodeTask(b *testing.B, f *farmtest.Farm, serial, lease string) func() error {
	c := f.Gateway().Client
	return func() error {
		res, err := c.Run(b.Context(), broker.TaskRequest{V: broker.WireVersion, ID: broker.NewTaskID(), Serial: serial, Tool: nopTool,
			Lease: lease, Holder: broker.Holder{Principal: "anonymous", Client: "bench-floors"}}, nil)
		if err == nil && res.Outcome != broker.OutcomeSucceeded {
			err = fmt.Errorf("%s: %s", res.Outcome, res.Error)
		}
		return err
	}
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
