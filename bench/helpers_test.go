package bench

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"math"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// callTimeout bounds every call a benchmark makes, so a stuck farm fails the run instead of
// hanging it.
const callTimeout = 30 * time.Second

// httpClient returns an initialized MCP client over streamable HTTP with its own connection
// pool, as a separate agent process would have. (http.DefaultTransport keeps only two idle
// connections per host: 32 clients sharing it would open a TCP connection for most calls.)
func httpClient(b *testing.B, f *farmtest.Farm, name string) *client.Client {
	b.Helper()
	return httpClientAt(b, f.Gateway().MCPURL, name)
}

// httpClientAt is httpClient of the MCP server at url.
func httpClientAt(b *testing.B, url, name string) *client.Client {
	b.Helper()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	c, err := client.NewStreamableHttpClient(url,
		transport.WithHTTPBasicClient(&http.Client{Transport: tr}),
		transport.WithHTTPLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = c.Close(); tr.CloseIdleConnections() })
	initialize(b, c, name)
	return c
}

// inProcessClient returns an initialized MCP client calling a gateway's MCP server directly,
// without HTTP. The gateway is a second one over the farm gateway's NATS client: the same
// tools, handlers and registry, minus the transport.
func inProcessClient(b *testing.B, f *farmtest.Farm, name string) *client.Client {
	b.Helper()
	g := mcp.New(f.Gateway().Client, slog.New(slog.DiscardHandler), mcp.NewMetrics(prometheus.NewRegistry()), mcp.Options{})
	c, err := client.NewInProcessClient(g.MCPServer())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = c.Close() })
	initialize(b, c, name)
	return c
}

func initialize(b *testing.B, c *client.Client, name string) {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		b.Fatal(err)
	}
	init := mcpgo.InitializeRequest{}
	init.Params.ClientInfo = mcpgo.Implementation{Name: name, Version: "bench"}
	if _, err := c.Initialize(ctx, init); err != nil {
		b.Fatal(err)
	}
}

// call calls a tool and returns its result or an error that names the tool (a tool error
// result is an error too). It is safe to use off the benchmark's goroutine.
func call(c *client.Client, tool string, args map[string]any) (*mcpgo.CallToolResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	req := mcpgo.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = tool, args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return nil, &callError{tool: tool, msg: err.Error()}
	}
	if res.IsError {
		return nil, &callError{tool: tool, msg: farmtest.Text(res)}
	}
	return res, nil
}

type callError struct{ tool, msg string }

func (e *callError) Error() string { return e.tool + ": " + e.msg }

// leaseHandle acquires serial through c and returns the lease handle.
func leaseHandle(b *testing.B, c *client.Client, args map[string]any) string {
	b.Helper()
	res, err := call(c, "acquire_device", args)
	if err != nil {
		b.Fatal(err)
	}
	return handleOf(b, res)
}

func handleOf(b *testing.B, res *mcpgo.CallToolResult) string {
	b.Helper()
	var out mcp.AcquireResult
	farmtest.Structured(b, res, &out)
	if out.Lease.Handle == "" {
		b.Fatalf("acquire_device gave no handle: %s", farmtest.Text(res))
	}
	return out.Lease.Handle
}

// percentile returns the q-quantile (0..1) of sorted by the nearest-rank method.
func percentile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// reportLatency reports the p50, p90, p99 and max of lat (in µs) under names prefix+"p50-µs" etc.
func reportLatency(b *testing.B, prefix string, lat []time.Duration) {
	b.Helper()
	if len(lat) == 0 {
		b.Fatalf("%sno latencies recorded", prefix)
	}
	s := slices.Clone(lat)
	slices.Sort(s)
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
	b.ReportMetric(us(percentile(s, 0.50)), prefix+"p50-µs")
	b.ReportMetric(us(percentile(s, 0.90)), prefix+"p90-µs")
	b.ReportMetric(us(percentile(s, 0.99)), prefix+"p99-µs")
	b.ReportMetric(us(s[len(s)-1]), prefix+"max-µs")
}

// reportThroughput reports calls per second of wall time, and the CPU time the whole process
// (clients, gateway, NATS, nodes) spent per call: unlike wall time, that hardly depends on what
// else the machine runs.
func reportThroughput(b *testing.B, calls int, elapsed, cpu time.Duration) {
	b.Helper()
	if elapsed > 0 {
		b.ReportMetric(float64(calls)/elapsed.Seconds(), "calls/s")
	}
	if calls > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/1e3/float64(calls), "cpu-µs/call")
	}
}

// reportCPU reports the process's CPU time per round of a benchmark whose rounds are not
// single calls.
func reportCPU(b *testing.B, cpu time.Duration, rounds int) {
	b.Helper()
	if rounds > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/1e3/float64(rounds), "cpu-µs/round")
	}
}

// procStatus reads fields of /proc/self/status in bytes (VmRSS, VmHWM, …); a missing field is 0.
func procStatus(fields ...string) (map[string]int64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseStatus(f, fields...)
}

func parseStatus(r io.Reader, fields ...string) (map[string]int64, error) {
	out := make(map[string]int64, len(fields))
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok || !slices.Contains(fields, name) {
			continue
		}
		parts := strings.Fields(rest) // "123456 kB"
		if len(parts) == 0 {
			continue
		}
		v, err := strconv.ParseInt(parts[0], 10, 64)
		if err != nil {
			return nil, err
		}
		if len(parts) > 1 && parts[1] == "kB" {
			v *= 1024
		}
		out[name] = v
	}
	return out, sc.Err()
}

// natsCounter notes the NATS server's message counts; the function it returns reports the
// messages the server received and sent per call since (nats-in/call, nats-out/call):
// requests, replies, JetStream publishes and their acks, KV watch deliveries, heartbeats.
func natsCounter(b *testing.B, f *farmtest.Farm) func(calls int) {
	b.Helper()
	v0, err := f.NATS.Varz(nil)
	if err != nil {
		b.Fatal(err)
	}
	in0, out0 := v0.InMsgs, v0.OutMsgs
	return func(calls int) {
		v, err := f.NATS.Varz(nil)
		if err != nil || calls == 0 {
			return
		}
		b.ReportMetric(float64(v.InMsgs-in0)/float64(calls), "nats-in/call")
		b.ReportMetric(float64(v.OutMsgs-out0)/float64(calls), "nats-out/call")
	}
}
