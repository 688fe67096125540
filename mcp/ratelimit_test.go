package mcp

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/corral-farm/corral/broker"
)

// fakeClock is a clock tests move by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// rateLimitedClient starts a gateway with rl on a fake clock and an in-process client.
func rateLimitedClient(t *testing.T, farm Farm, rl RateLimit) (*client.Client, *Gateway, *fakeClock) {
	t.Helper()
	g := New(farm, slog.New(slog.DiscardHandler), NewMetrics(prometheus.NewRegistry()), Options{RateLimit: rl})
	clock := &fakeClock{now: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	g.limiter.now = clock.Now
	return inProcessClient(t, g), g, clock
}

func retryAfterMS(t *testing.T, res *mcpgo.CallToolResult) float64 {
	t.Helper()
	if res.Meta == nil {
		t.Fatalf("no _meta in %s", resultText(res))
	}
	switch v := res.Meta.AdditionalFields["retryAfterMs"].(type) {
	case float64:
		return v
	case int64:
		return float64(v)
	default:
		t.Fatalf("_meta.retryAfterMs is %T %v", v, v)
	}
	return 0
}

// A call over a device's rate gets a retry-after answer at once, without reaching the node;
// after that time the call passes. Other devices have their own buckets.
func TestRateLimitAnswersRetryAfter(t *testing.T) {
	farm := newFakeFarm(t)
	c, g, clock := rateLimitedClient(t, farm, RateLimit{PerSecond: 10, Burst: 2})
	tap := func(serial string) *mcpgo.CallToolResult {
		return call(t, c, "tap_xy", map[string]any{"serial": serial, "x": 0.5, "y": 0.5})
	}
	wantOK(t, "tap_xy", tap("emulator-5554"))
	wantOK(t, "tap_xy", tap("emulator-5554"))
	res := tap("emulator-5554")
	wantError(t, res, "rate limited: device emulator-5554 allows 10 calls/s (burst 2) through this gateway; retry after 100 ms")
	if ms := retryAfterMS(t, res); ms != 100 {
		t.Errorf("retryAfterMs %v, want 100", ms)
	}
	if n := len(farm.Runs()); n != 2 {
		t.Fatalf("%d tasks reached the farm, want 2", n)
	}
	wantOK(t, "tap_xy", tap("00008101-IPHONE")) // its own bucket

	clock.Add(40 * time.Millisecond)
	wantError(t, tap("emulator-5554"), "retry after 60 ms")
	clock.Add(60 * time.Millisecond)
	wantOK(t, "tap_xy", tap("emulator-5554"))
	if got := counterValue(t, g.metrics.denied.WithLabelValues(reasonRate)); got != 2 {
		t.Errorf("corral_gateway_denied_total{reason=rate} = %v, want 2", got)
	}
}

// Calls waiting for a device through this gateway are capped: one more is refused with a
// retry-after answer instead of queuing, and passes once the device is free again.
func TestRateLimitCapsWaitingCalls(t *testing.T) {
	farm := newFakeFarm(t)
	release := make(chan struct{})
	farm.RunFn = func(ctx context.Context, req broker.TaskRequest, _ func(broker.Progress)) (broker.TaskResult, error) {
		if req.Tool == "sleep" {
			select {
			case <-release:
			case <-ctx.Done():
			}
		}
		return broker.TaskResult{V: 1, ID: req.ID, Serial: req.Serial, Tool: req.Tool, Outcome: broker.OutcomeSucceeded, Text: "ok"}, nil
	}
	c, _, _ := rateLimitedClient(t, farm, RateLimit{MaxWaiting: 1})
	done := make(chan *mcpgo.CallToolResult)
	go func() {
		req := mcpgo.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = "sleep", map[string]any{"serial": "emulator-5554", "seconds": 5}
		res, err := c.CallTool(context.Background(), req)
		if err != nil {
			res = errorResult(err.Error())
		}
		done <- res
	}()
	deadline := time.Now().Add(10 * time.Second)
	for len(farm.Runs()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the sleep never reached the farm")
		}
		time.Sleep(time.Millisecond)
	}
	res := call(t, c, "tap_xy", map[string]any{"serial": "emulator-5554", "x": 0.5, "y": 0.5, "wait_seconds": 30})
	wantError(t, res, "rate limited: device emulator-5554 already has 1 calls waiting or running through this gateway", "retry after 1000 ms")
	if ms := retryAfterMS(t, res); ms != 1000 {
		t.Errorf("retryAfterMs %v", ms)
	}
	if res := call(t, c, "tap_xy", map[string]any{"serial": "00008101-IPHONE", "x": 0.5, "y": 0.5}); res.IsError {
		t.Fatalf("another device is not limited: %s", resultText(res))
	}
	close(release)
	if res := <-done; res.IsError {
		t.Fatalf("sleep: %s", resultText(res))
	}
	if res := call(t, c, "tap_xy", map[string]any{"serial": "emulator-5554", "x": 0.5, "y": 0.5}); res.IsError {
		t.Fatalf("after the sleep: %s", resultText(res))
	}
	if n := len(farm.Runs()); n != 3 {
		t.Fatalf("%d tasks reached the farm, want 3 (sleep, tap on the iPhone, tap after the sleep)", n)
	}
}

func TestParseRate(t *testing.T) {
	for in, want := range map[string]float64{"50/s": 50, "50": 50, "600/m": 10, "off": 0, "0": 0, "": 0, "2.5/S": 2.5} {
		got, err := ParseRate(in)
		if err != nil || got != want {
			t.Errorf("ParseRate(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"fast", "-1/s", "5/h", "NaN", "1/s/s"} {
		if _, err := ParseRate(in); err == nil {
			t.Errorf("ParseRate(%q) accepted", in)
		}
	}
}

// The limiter forgets idle devices, so a registry that churns serials does not grow it.
func TestLimiterForgetsIdleDevices(t *testing.T) {
	l := newLimiter(RateLimit{PerSecond: 1000, Burst: 1})
	clock := &fakeClock{now: time.Unix(0, 0)}
	l.now = clock.Now
	for i := range maxBuckets * 3 {
		done, _, _ := l.admit(string(rune('a'+i%26))+time.Duration(i).String(), "")
		if done == nil {
			t.Fatal("refused a fresh device")
		}
		done()
		clock.Add(time.Millisecond)
	}
	l.mu.Lock()
	n := len(l.devices)
	l.mu.Unlock()
	if n > maxBuckets {
		t.Fatalf("%d buckets kept", n)
	}
}
