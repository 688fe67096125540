package steps

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/corral-farm/corral/mcp"
)

// A gateway with an auth policy lists only the tools the caller's token may call: a step of
// another that corral has (Known) is one the gateway keeps from this token, not a tool it
// lacks or a misspelt one. Nothing is asked of the gateway and nothing runs.
func TestPlanSaysTheTokenMayNotUseATool(t *testing.T) {
	f, _, _ := startFarm(t)
	const token = "viewer-token-5f2b9c0d7e1a"
	pol, err := mcp.ParsePolicy([]byte("principals:\n  - name: viewer\n    token: "+token+"\n    tools: [readonly]\n"), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	g := mcp.New(f.Gateway().Client, slog.New(slog.DiscardHandler), mcp.NewMetrics(prometheus.NewRegistry()), mcp.Options{Policy: pol})
	srv := httptest.NewServer(g.Handler())
	t.Cleanup(srv.Close)
	c, err := client.NewStreamableHttpClient(srv.URL+"/mcp", transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(ctx, mcpgo.InitializeRequest{}); err != nil {
		t.Fatal(err)
	}
	before := len(f.Phone("n1-p1").InputLog())
	cat, err := FetchCatalog(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, tool := range mcp.New(nil, slog.New(slog.DiscardHandler), mcp.NewMetrics(prometheus.NewRegistry()), mcp.Options{}).MCPServer().ListTools() {
		all = append(all, tool.Tool.Name)
	}
	cat.Known(all)
	_, err = NewPlan(mustParse(t, "- {method: home}\n- {method: tap_yx, params: [0.5, 0.5]}\n- {method: get_screen_size}\n"), cat, Options{Serial: "n1-p1"})
	for _, want := range []string{
		`step 1 (line 1, home): the gateway does not list home: either its --tools profile leaves it out`,
		`or its auth policy keeps it from this token (a gateway with a policy lists only the tools a token may call`,
		`step 2 (line 2, tap_yx): the gateway has no tool "tap_yx"`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Run's error\n%v\ndoes not say %s", err, want)
		}
	}
	if err != nil && strings.Count(err.Error(), "\n") != 1 {
		t.Errorf("want 2 steps at fault:\n%v", err)
	}
	if log := f.Phone("n1-p1").InputLog(); len(log) != before {
		t.Errorf("something ran on the phone: %v", log)
	}
}
