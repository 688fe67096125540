package main

import (
	"log/slog"
	"slices"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/corral-farm/corral/mcp"
	"github.com/corral-farm/corral/mcp/steps"
)

// localCatalog is the tools/list of a gateway of this corral, read without one: what the
// checks that need no gateway (corral run --check-config, corral tasks --tool) hold names and
// arguments to. A gateway of another version may serve other tools.
func localCatalog() (*steps.Catalog, error) {
	g := mcp.New(nil, slog.New(slog.DiscardHandler), mcp.NewMetrics(prometheus.NewRegistry()), mcp.Options{Platforms: platforms()})
	var all []mcpgo.Tool
	for _, t := range g.MCPServer().ListTools() {
		all = append(all, t.Tool)
	}
	slices.SortFunc(all, func(a, b mcpgo.Tool) int { return strings.Compare(a.Name, b.Name) })
	return steps.NewCatalog(all)
}
