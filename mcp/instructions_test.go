package mcp

import (
	"log/slog"
	"reflect"
	"strings"
	"testing"

	"github.com/corral-farm/corral/nodes/tools"
	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The server's instructions name every one of HttpRunner's general options, which every
// HttpRunner tool takes unlisted (nodes/tools/seedopts.go): the schemas leave them out, so the
// instructions are where an agent learns them. They named two of the six.
func TestInstructionsNameTheGeneralOptions(t *testing.T) {
	g := New(newFakeFarm(t), slog.New(slog.DiscardHandler), NewMetrics(prometheus.NewRegistry()), Options{})
	c, err := client.NewInProcessClient(g.MCPServer())
	require.NoError(t, err)
	require.NoError(t, c.Start(t.Context()))
	t.Cleanup(func() { _ = c.Close() })
	req := mcpgo.InitializeRequest{}
	req.Params.ClientInfo = mcpgo.Implementation{Name: "corral-test", Version: "1"}
	res, err := c.Initialize(t.Context(), req)
	require.NoError(t, err)
	names := jsonNames(reflect.TypeFor[tools.SeedOptions]())
	require.Len(t, names, 6, "HttpRunner's six general options")
	assert.Contains(t, res.Instructions, "six general options")
	for _, name := range names {
		assert.Contains(t, res.Instructions, name+" (", "the instructions name and explain %s", name)
	}
}

// jsonNames are the JSON names of struct type ty's fields, its embedded structs' included.
func jsonNames(ty reflect.Type) []string {
	var names []string
	for f := range ty.Fields() {
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			names = append(names, jsonNames(f.Type)...)
			continue
		}
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" {
			names = append(names, name)
		}
	}
	return names
}
