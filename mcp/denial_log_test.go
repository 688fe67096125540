package mcp

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// The denial log writes a denial once per window; its repeats are counted and reported on the
// next line of the same denial, and denials beyond maxDenialKeys at once on the next line of
// any: a client cannot flood the log, and nothing goes uncounted.
func TestDenialLogOncePerWindow(t *testing.T) {
	var buf bytes.Buffer
	var mu sync.Mutex
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	l := newDenialLog(slog.New(slog.NewTextHandler(&lockedWriter{&mu, &buf}, nil)))
	l.now = func() time.Time { return now }
	lines := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return strings.Split(strings.TrimSpace(buf.String()), "\n")
	}
	ctx := context.WithValue(context.Background(), remoteKey{}, "192.0.2.7:41000")
	d := denial{reason: reasonTool, tool: "tap_xy", rule: "tools [readonly]"}

	for range 5 {
		l.record(ctx, "viewer", d)
	}
	if got := lines(); len(got) != 1 || !strings.Contains(got[0], "principal=viewer tool=tap_xy") || strings.Contains(got[0], "repeats") {
		t.Fatalf("five denials at once logged as:\n%s", strings.Join(got, "\n"))
	}
	l.record(ctx, "other", d) // another principal is another denial
	now = now.Add(denialWindow)
	l.record(ctx, "viewer", d)
	got := lines()
	if len(got) != 3 || !strings.Contains(got[2], "repeats=4") || !strings.Contains(got[2], "remote=192.0.2.7:41000") {
		t.Fatalf("the line after the window does not count the four repeats:\n%s", strings.Join(got, "\n"))
	}

	for i := range maxDenialKeys + 10 { // distinct denials at once: the map is bounded
		l.record(ctx, "viewer", denial{reason: reasonDevice, tool: "tap_xy", serial: fmt.Sprintf("dev-%d", i)})
	}
	if n := len(l.seen); n > maxDenialKeys {
		t.Fatalf("%d denials remembered, more than %d", n, maxDenialKeys)
	}
	before := len(lines())
	now = now.Add(denialWindow)
	l.record(ctx, "viewer", denial{reason: reasonDevice, tool: "tap_xy", serial: "dev-new"})
	got = lines()
	if len(got) != before+1 || !strings.Contains(got[len(got)-1], "unlogged_others=") {
		t.Fatalf("the denials not logged for want of room are not reported: %s", got[len(got)-1])
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}

// Requests refused for want of a valid token, on /mcp and the console alike, are logged once
// a minute per host and reason, and counted every time: a client retrying a bad token, or a
// scanner, does not flood the log.
func TestUnauthenticatedRefusalsLoggedOncePerWindow(t *testing.T) {
	h := startHTTPGateway(t, newFakeFarm(t), Options{Policy: testPolicy(t)})
	get := func(path, token string) {
		req, err := http.NewRequest(http.MethodPost, h.srv.URL+path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		if err != nil {
			t.Fatal(err)
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		req.Close = true // a new connection, a new port, each time
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = res.Body.Close()
		if res.StatusCode != http.StatusUnauthorized {
			t.Fatalf("%s with token %q: %s, want 401", path, token, res.Status)
		}
	}
	for range 5 {
		get("/mcp", "not-a-token-of-this-gateway")
	}
	get("/mcp", "")
	lines := strings.Count(h.logs.String(), "refused unauthenticated request")
	if lines != 2 { // one per reason: a bad token, none
		t.Fatalf("%d log lines for 5 bad tokens and one missing from one host, want 2:\n%s", lines, h.logs.String())
	}
	if n := testutil.ToFloat64(h.metrics.denied.WithLabelValues(reasonBadToken)); n != 5 {
		t.Fatalf("corral_gateway_denied_total{reason=%q} = %v, want every refusal counted (5)", reasonBadToken, n)
	}
}
