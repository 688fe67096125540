package mcp

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
)

// metricsGateway serves a gateway whose /metrics serves its own registry, on a fake clock
// for its sessions: only the test makes a session idle.
func metricsGateway(t *testing.T, opts Options) (*httptest.Server, *fakeClock) {
	t.Helper()
	reg := prometheus.NewRegistry()
	opts.Gatherer = reg
	g := New(newFakeFarm(t), slog.New(slog.DiscardHandler), NewMetrics(reg), opts)
	t.Cleanup(g.Close)
	clock := &fakeClock{now: time.Now()}
	g.sessions.mu.Lock() // the sessions read their clock under mu
	g.sessions.now = clock.Now
	g.sessions.mu.Unlock()
	srv := httptest.NewServer(g.Handler())
	t.Cleanup(srv.Close)
	return srv, clock
}

// sessionClient is a real MCP client of srv in a protocol session of its own (a revision
// before 2026-07-28: the later one has none), sending token.
func sessionClient(t *testing.T, srv *httptest.Server, token string) *client.Client {
	t.Helper()
	var opts []transport.StreamableHTTPCOption
	if token != "" {
		opts = append(opts, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	}
	c, err := client.NewStreamableHttpClient(srv.URL+"/mcp", opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	require.NoError(t, c.Start(ctx))
	init := mcpgo.InitializeRequest{}
	init.Params.ClientInfo = mcpgo.Implementation{Name: "gauge-test", Version: "1"}
	init.Params.ProtocolVersion = mcpgo.LATEST_LEGACY_PROTOCOL_VERSION
	_, err = c.Initialize(ctx, init)
	require.NoError(t, err)
	require.NotEmpty(t, c.GetSessionId(), "no protocol session")
	return c
}

// scrapeSessions reads corral_gateway_sessions by principal and corral_gateway_session_cap
// (under the key "cap") from srv's /metrics.
func scrapeSessions(t *testing.T, srv *httptest.Server) map[string]float64 {
	t.Helper()
	resp, err := http.Get(srv.URL + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	out := map[string]float64{}
	lines := bufio.NewScanner(resp.Body)
	for lines.Scan() {
		series, value, ok := strings.Cut(lines.Text(), " ")
		if !ok || strings.HasPrefix(series, "#") {
			continue
		}
		key := ""
		switch {
		case series == "corral_gateway_session_cap":
			key = "cap"
		case strings.HasPrefix(series, `corral_gateway_sessions{principal="`):
			key = strings.TrimSuffix(strings.TrimPrefix(series, `corral_gateway_sessions{principal="`), `"}`)
		default:
			continue
		}
		v, err := strconv.ParseFloat(value, 64)
		require.NoError(t, err, series)
		out[key] = v
	}
	require.NoError(t, lines.Err())
	return out
}

// waitSessions polls srv's /metrics until it shows want.
func waitSessions(t *testing.T, srv *httptest.Server, want map[string]float64, what string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		got := scrapeSessions(t, srv)
		if fmt.Sprint(got) == fmt.Sprint(want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: /metrics shows %v, want %v", what, got, want)
		}
		time.Sleep(10 * time.Millisecond) // a poll's interval
	}
}

// endSessionOf sends the DELETE that ends c's session, with token: mcp-go's client sends its
// own without the client's headers, which a gateway with a policy refuses (401).
func endSessionOf(t *testing.T, srv *httptest.Server, c *client.Client, token string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodDelete, srv.URL+"/mcp", http.NoBody)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Mcp-Session-Id", c.GetSessionId())
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "DELETE of a session")
}

// The gateway's /metrics shows its live protocol sessions by principal, the policy's
// principals from zero, and the cap of each (--max-sessions): three sessions opened show 3,
// one a client ends (DELETE) leaves 2, one idle past its TTL leaves 1.
func TestSessionsGaugeFollowsLiveSessions(t *testing.T) {
	// Short, so that the sweeper looks often (ttl/4, real time); the fake clock alone makes a
	// session idle.
	const ttl = 200 * time.Millisecond
	srv, clock := metricsGateway(t, Options{Policy: testPolicy(t), Limits: Limits{SessionTTL: ttl, MaxSessions: 7}})
	waitSessions(t, srv, map[string]float64{"cap": 7, "viewer": 0, "lab": 0, "admin": 0}, "before any session")

	sessionClient(t, srv, adminToken) // left idle
	ended, busy := sessionClient(t, srv, adminToken), sessionClient(t, srv, labToken)
	waitSessions(t, srv, map[string]float64{"cap": 7, "viewer": 0, "lab": 1, "admin": 2}, "three sessions opened")

	endSessionOf(t, srv, ended, adminToken)
	waitSessions(t, srv, map[string]float64{"cap": 7, "viewer": 0, "lab": 1, "admin": 1}, "one session ended by its client")

	// The idle one goes past its TTL; busy, used half-way, does not.
	clock.Add(ttl/2 + time.Millisecond)
	require.NoError(t, busy.Ping(t.Context()))
	clock.Add(ttl/2 + time.Millisecond)
	waitSessions(t, srv, map[string]float64{"cap": 7, "viewer": 0, "lab": 1, "admin": 0}, "one session idle past its TTL")
}

// Without a policy every caller is anonymous: one series, the whole gateway, whose cap all
// callers share.
func TestSessionsGaugeWithoutPolicyIsAnonymous(t *testing.T) {
	srv, _ := metricsGateway(t, Options{})
	waitSessions(t, srv, map[string]float64{"cap": DefaultMaxSessions, "anonymous": 0}, "before any session")
	sessionClient(t, srv, "")
	sessionClient(t, srv, "")
	waitSessions(t, srv, map[string]float64{"cap": DefaultMaxSessions, "anonymous": 2}, "two sessions opened")
}
