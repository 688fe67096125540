package bench

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// BenchmarkAbort times how soon a long call ends once it is cancelled, on one farm (1 node, 1
// phone) over streamable HTTP: the README promises that sleep, app_install and sequence stop
// within 200 ms. A round starts `sleep` 60 s on the phone and waits until the node shows the
// phone busy (this polling is the benchmark's, not the system's, and is not timed; see
// waitState), then cancels it one of two ways:
//
//   - abort_task: another client calls abort_task on the phone. p50-µs… is the time from the
//     start of abort_task to the sleep call's answer (aborted); answer-p50-µs… is abort_task's
//     own answer.
//   - cancel: the caller cancels its call's context (mcp-go ends the request's HTTP stream;
//     the gateway asks the node to abort the task). p50-µs… is the time from the cancel until
//     the phone has run a new call: another client's get_screen_size with wait_seconds, sent
//     right after the cancel, which the node queues while the sleep runs and answers once it
//     has run.
//
// ns/op, allocs/op and cpu-µs/round (the whole process's) are of the timed part of a round,
// from the abort or cancel to the last answer timed.
func BenchmarkAbort(b *testing.B) {
	f := farmtest.Start(b, farmtest.Options{Nodes: 1, PhonesPerNode: 1, Quiet: true})
	serial := f.Devices()[0].Serial
	reg := f.Registry
	sleep := map[string]any{"serial": serial, "seconds": 60}

	b.Run("op=abort_task", func(b *testing.B) {
		agent, op := httpClient(b, f, "bench-agent"), httpClient(b, f, "bench-operator")
		abort := map[string]any{"serial": serial}
		type answer struct {
			res *mcpgo.CallToolResult
			err error
			at  time.Time
		}
		var ends, answers []time.Duration
		rounds(b, func() (cpu time.Duration) {
			b.StopTimer()
			waitState(b, reg, serial, broker.StateOnline)
			got := make(chan answer, 1)
			go func() {
				res, err := callResult(context.Background(), agent, "sleep", sleep)
				got <- answer{res, err, time.Now()}
			}()
			waitState(b, reg, serial, broker.StateBusy)
			b.StartTimer()
			cpu0, t0 := cpuTime(), time.Now()
			res, err := call(op, "abort_task", abort)
			t1 := time.Now()
			if err != nil {
				b.Fatal(err)
			}
			a := <-got
			cpu = cpuTime() - cpu0
			if a.err != nil {
				b.Fatal(a.err)
			}
			var out mcp.AbortResult
			if farmtest.Structured(b, res, &out); len(out.Aborted) != 1 {
				b.Fatalf("abort_task aborted %v; want the sleep", out.Aborted)
			}
			if text := farmtest.Text(a.res); !a.res.IsError || !strings.Contains(text, "aborted") {
				b.Fatalf("the aborted sleep answered %q; want an error saying aborted", text)
			}
			ends, answers = append(ends, a.at.Sub(t0)), append(answers, t1.Sub(t0))
			return cpu
		}, func() { ends, answers = ends[:0], answers[:0] })
		reportLatency(b, "", ends)
		reportLatency(b, "answer-", answers)
	})

	b.Run("op=cancel", func(b *testing.B) {
		agent, other := httpClient(b, f, "bench-agent"), httpClient(b, f, "bench-next")
		next := map[string]any{"serial": serial, "wait_seconds": 10}
		var frees []time.Duration
		rounds(b, func() (cpu time.Duration) {
			b.StopTimer()
			waitState(b, reg, serial, broker.StateOnline)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			ended := make(chan error, 1)
			go func() {
				_, err := callResult(ctx, agent, "sleep", sleep)
				ended <- err
			}()
			waitState(b, reg, serial, broker.StateBusy)
			b.StartTimer()
			cpu0, t0 := cpuTime(), time.Now()
			cancel()
			_, err := call(other, nopTool, next)
			free := time.Since(t0)
			cpu = cpuTime() - cpu0
			if err != nil {
				b.Fatal(err)
			}
			if err := <-ended; !errors.Is(err, context.Canceled) {
				b.Fatalf("the cancelled sleep ended with %v; want context.Canceled", err)
			}
			frees = append(frees, free)
			return cpu
		}, func() { frees = frees[:0] })
		reportLatency(b, "", frees)
	})
}

// rounds runs round a few times to warm up, calls reset, then runs it in b.Loop and reports
// the CPU time round returned per round. Each round stops the benchmark's timer for its set-up
// and starts it again for what it times, so that ns/op and allocs/op are of the timed part.
func rounds(b *testing.B, round func() (cpu time.Duration), reset func()) {
	b.Helper()
	for range 5 {
		round()
	}
	reset()
	b.ReportAllocs()
	var cpu time.Duration
	n := 0
	for b.Loop() {
		cpu += round()
		n++
	}
	reportCPU(b, cpu, n)
}

// callResult calls a tool within ctx (and callTimeout) and returns its result, a tool error
// included; err is a protocol error or the end of ctx. It is safe to use off the benchmark's
// goroutine.
func callResult(ctx context.Context, c *client.Client, tool string, args map[string]any) (*mcpgo.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	req := mcpgo.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = tool, args
	return c.CallTool(ctx, req)
}

// waitState polls until serial's node shows it in state, failing the benchmark after 10 s. It
// reads the node's corral_device_state gauge from the farm's metrics registry (in-process, no
// message), which the node's scheduler sets as the state changes; the gateway's registry would
// do as well but is written at most every 250 ms, which would make every round half a second
// long. The polling is the benchmark's, not the system's, with a short pause between reads so
// that it leaves the cores to the farm.
func waitState(b *testing.B, reg prometheus.Gatherer, serial, state string) {
	b.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		now, err := nodeState(reg, serial)
		if err != nil {
			b.Fatal(err)
		}
		if now == state {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("%s is %q, not %s, after 10s", serial, now, state)
		}
		time.Sleep(50 * time.Microsecond)
	}
}

// nodeState is serial's state as its node's metrics show it ("" before the node knows it).
func nodeState(reg prometheus.Gatherer, serial string) (string, error) {
	mfs, err := reg.Gather()
	if err != nil {
		return "", err
	}
	for _, mf := range mfs {
		if mf.GetName() != "corral_device_state" {
			continue
		}
		for _, m := range mf.GetMetric() {
			var s, st string
			for _, l := range m.GetLabel() {
				switch l.GetName() {
				case "serial":
					s = l.GetValue()
				case "state":
					st = l.GetValue()
				}
			}
			if s == serial && m.GetGauge().GetValue() == 1 {
				return st, nil
			}
		}
	}
	return "", nil
}
