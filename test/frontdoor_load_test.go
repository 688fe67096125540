package test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// limitedGateway serves a gateway over the farm as `corral gateway` does: its own HTTP server
// and listener with the front door's limits. It returns the MCP endpoint.
func limitedGateway(t *testing.T, f *farmtest.Farm, opts mcp.Options) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	log := slog.New(slog.DiscardHandler)
	nc, err := broker.Connect(broker.ConnectOptions{URL: f.URL, Name: "limited-gateway"}, log)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	stores, err := broker.EnsureStores(ctx, nc, broker.StoreOptions{})
	require.NoError(t, err)
	reg := prometheus.NewRegistry()
	c, err := broker.NewClient(ctx, nc, stores, broker.ClientOptions{Log: log, Reap: true, Metrics: broker.NewClientMetrics(reg)})
	require.NoError(t, err)
	require.NoError(t, c.WaitReady(ctx))
	opts.Ready, opts.Gatherer = c.Ready, reg
	g := mcp.New(c, log, mcp.NewMetrics(reg), opts)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := g.HTTPServer()
	go func() { _ = srv.Serve(g.Listener(ln)) }()
	t.Cleanup(func() { _ = srv.Close() })
	farmtest.Eventually(t, 10*time.Second, func() bool { return len(c.Devices()) == 3 }, "the gateway sees the 3 phones")
	return "http://" + ln.Addr().String() + "/mcp"
}

// callWithinRate calls tool as a polite client does: a rate-limited call is made again after
// the retryAfterMs the gateway answered with. Callers' pace then depends on the limit alone, not
// on how fast the machine answers.
func callWithinRate(t *testing.T, c *client.Client, tool string, a map[string]any) *mcpgo.CallToolResult {
	t.Helper()
	for {
		res := farmtest.Call(t, c, tool, a)
		var retry float64
		if res.Meta != nil {
			retry, _ = res.Meta.AdditionalFields["retryAfterMs"].(float64)
		}
		if !res.IsError || retry <= 0 || !strings.Contains(farmtest.Text(res), "): rate limited:") {
			require.False(t, res.IsError, "%s %v: %s", tool, a, farmtest.Text(res))
			return res
		}
		time.Sleep(time.Duration(retry) * time.Millisecond)
	}
}

func heapAfterGC() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// 64 clients on 3 simulated phones: one holds n1-p1 and taps it at 10/s; 47 agents work on
// the farm (some hammering the held phone, answered "busy"); 8 send 64 MiB bodies and 8 send
// bodies that stall. Every call of the holder is admitted, the hostile requests are refused
// or cut off within the read timeout, and once they stop the heap is back within 20 % of
// where it started.
func TestFrontdoorLoadWithHostileClients(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{})
	url := limitedGateway(t, f, mcp.Options{RateLimit: mcp.RateLimit{PerSecond: 20, Burst: 20, MaxWaiting: 64},
		Limits: mcp.Limits{ReadTimeout: time.Second, MaxBody: 4 << 20, MaxConns: 512}})

	connect := func(name string) *client.Client {
		c, err := client.NewStreamableHttpClient(url)
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.Close() })
		require.NoError(t, c.Start(context.Background()))
		init := mcpgo.InitializeRequest{}
		init.Params.ClientInfo = mcpgo.Implementation{Name: name, Version: "test"}
		_, err = c.Initialize(context.Background(), init)
		require.NoError(t, err)
		return c
	}
	holder := connect("holder")
	held := acquire(t, holder, args("serial", "n1-p1"))
	agents := make([]*client.Client, 47)
	for i := range agents {
		agents[i] = connect(fmt.Sprintf("agent-%d", i))
	}
	// Warm up what the test keeps anyway (each client's catalog of schemas, the farm's caches)
	// before the heap's starting point is taken.
	for _, c := range append(agents, holder) {
		callWithinRate(t, c, "get_screen_size", args("serial", "n1-p2"))
	}
	farmtest.MustCall(t, holder, "tap_xy", args("serial", "n1-p1", "lease", held.Lease.Handle, "x", 0.5, "y", 0.5))
	start := heapAfterGC()

	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var wg sync.WaitGroup
	var agentCalls, hugeRefused, stalledCut atomic.Int64
	for i, c := range agents {
		serial := []string{"n1-p1", "n1-p2", "n1-p3"}[i%3]
		wg.Go(func() {
			for ctx.Err() == nil {
				if _, err := farmtest.TryCall(t, c, "get_screen_size", args("serial", serial)); err == nil {
					agentCalls.Add(1)
				}
			}
		})
	}
	for range 8 {
		wg.Go(func() {
			for ctx.Err() == nil {
				if status := postHuge(ctx, url); status == http.StatusRequestEntityTooLarge {
					hugeRefused.Add(1)
				}
			}
		})
	}
	for range 8 {
		wg.Go(func() {
			for ctx.Err() == nil {
				if stallBody(ctx, url, 10*time.Second) {
					stalledCut.Add(1)
				}
			}
		})
	}

	tick := time.NewTicker(100 * time.Millisecond) // the holder's pace: 10 taps a second
	defer tick.Stop()
	for i := range 30 {
		<-tick.C
		res := farmtest.Call(t, holder, "tap_xy", args("serial", "n1-p1", "lease", held.Lease.Handle, "x", 0.5, "y", 0.5))
		// The farm's warnings (a lease revoked, a node declared lost) print with a failure.
		require.False(t, res.IsError, "holder's tap %d refused: %s", i+1, farmtest.Text(res))
	}
	farmtest.Eventually(t, 30*time.Second, func() bool {
		return hugeRefused.Load() >= 8 && stalledCut.Load() >= 8 && agentCalls.Load() >= 47
	}, "the hostile clients were refused (%d huge, %d stalled) and the agents served (%d calls)",
		hugeRefused.Load(), stalledCut.Load(), agentCalls.Load())
	stop()
	wg.Wait()
	farmtest.MustCall(t, holder, "release_device", args("serial", "n1-p1", "lease", held.Lease.Handle))

	// Memory comes back: poll, as freed buffers and closed connections settle.
	var end uint64
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if end = heapAfterGC(); float64(end) <= 1.2*float64(start) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("heap at %d KB, not back within 20%% of its start, %d KB", end>>10, start>>10)
		}
	}
	t.Logf("heap %d MB at start, %d MB at the end; %d agent calls, %d huge bodies refused, %d stalled bodies cut off",
		start>>20, end>>20, agentCalls.Load(), hugeRefused.Load(), stalledCut.Load())
}

// postHuge posts a 64 MiB body that says its length and returns the status.
func postHuge(ctx context.Context, url string) int {
	body := io.LimitReader(zeroReader{}, 64<<20)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, body)
	if err != nil {
		return 0
	}
	req.ContentLength = 64 << 20
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

// stallBody sends a request whose body stops after a few bytes and reports whether the
// gateway ended it (answered or closed) within limit.
func stallBody(ctx context.Context, url string, limit time.Duration) bool {
	host := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp")
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", host)
	if err != nil {
		return false
	}
	defer conn.Close()
	if _, err := fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{\"jsonrpc\":", host); err != nil {
		return false
	}
	_ = conn.SetReadDeadline(time.Now().Add(limit))
	_, err = io.Copy(io.Discard, conn)
	var ne net.Error
	return err == nil || !(errors.As(err, &ne) && ne.Timeout())
}
