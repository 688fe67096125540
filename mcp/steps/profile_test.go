package steps

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/corral-farm/corral/mcp"
)

// A gateway started with --tools physiclaw lists PhysiClaw's tools, and no policy is in play: a
// step's home is left out by the profile, which the error names with the profiles that have
// home. QA: it said the token's policy lacked home, on a gateway with no policy.
func TestPlanNamesTheGatewaysProfile(t *testing.T) {
	f, _, _ := startFarm(t)
	names, err := mcp.SelectTools("physiclaw")
	if err != nil {
		t.Fatal(err)
	}
	g := mcp.New(f.Gateway().Client, slog.New(slog.DiscardHandler), mcp.NewMetrics(prometheus.NewRegistry()), mcp.Options{Tools: names})
	srv := httptest.NewServer(g.Handler())
	t.Cleanup(srv.Close)
	c, err := client.NewStreamableHttpClient(srv.URL + "/mcp")
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
	cat, err := FetchCatalog(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, tool := range mcp.New(nil, slog.New(slog.DiscardHandler), mcp.NewMetrics(prometheus.NewRegistry()), mcp.Options{}).MCPServer().ListTools() {
		all = append(all, tool.Tool.Name)
	}
	cat.Known(all)
	before := len(f.Phone("n1-p1").InputLog())
	_, err = NewPlan(mustParse(t, "- {method: home}\n- {method: home_screen}\n"), cat, Options{Serial: "n1-p1"})
	want := `step 1 (line 1, home): the gateway does not list home: it serves the physiclaw profile (--tools physiclaw, the ` +
		`15 tools it lists), which has no home; a gateway started with --tools all (the default) or httprunner serves it`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("NewPlan's error\n%v\ndoes not say\n%s", err, want)
	}
	if err != nil && (strings.Contains(err.Error(), "policy") || strings.Contains(err.Error(), "home_screen")) {
		t.Errorf("NewPlan's error blames a policy or a tool the profile has:\n%v", err)
	}
	if log := f.Phone("n1-p1").InputLog(); len(log) != before {
		t.Errorf("something ran on the phone: %v", log)
	}
}

// A list that is no profile's (a policy's, or a list of tools given to --tools) names both
// causes, and no profile.
func TestUnknownNamesBothCauses(t *testing.T) {
	cat, err := NewCatalog([]mcpgo.Tool{mcpgo.NewTool("screenshot"), mcpgo.NewTool("tap_xy")})
	if err != nil {
		t.Fatal(err)
	}
	cat.Known([]string{"screenshot", "tap_xy", "home"})
	err = cat.Check("home", nil)
	for _, want := range []string{
		`the gateway does not list home: either its --tools profile leaves it out (--tools all (the default) or httprunner has it)`,
		`or its auth policy keeps it from this token`,
		`ask its operator for a token whose policy has home`,
		`the 2 tools it lists`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Check's error\n%v\ndoes not say %s", err, want)
		}
	}
	if err != nil && strings.Contains(err.Error(), "serves the") {
		t.Errorf("Check's error names a profile the list is not: %v", err)
	}
}
