package mcp

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/prometheus/client_golang/prometheus"
)

// newTestClient starts a gateway over farm and a real MCP client connected to it in process.
func newTestClient(t testing.TB, farm Farm) *client.Client {
	t.Helper()
	return inProcessClient(t, New(farm, slog.New(slog.DiscardHandler), NewMetrics(prometheus.NewRegistry()), Options{}))
}

// inProcessClient returns a real MCP client connected to g in process, initialized.
func inProcessClient(t testing.TB, g *Gateway) *client.Client {
	t.Helper()
	c, err := client.NewInProcessClient(g.MCPServer())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	req := mcpgo.InitializeRequest{}
	req.Params.ClientInfo = mcpgo.Implementation{Name: "corral-test", Version: "1"}
	if _, err := c.Initialize(ctx, req); err != nil {
		t.Fatal(err)
	}
	return c
}

// call calls tool with args (any JSON value) and fails the test on a protocol error.
func call(t testing.TB, c *client.Client, tool string, args any) *mcpgo.CallToolResult {
	t.Helper()
	req := mcpgo.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := c.CallTool(context.Background(), req)
	if err != nil {
		t.Fatalf("%s %v: protocol error: %v", tool, args, err)
	}
	if res == nil {
		t.Fatalf("%s %v: no result", tool, args)
	}
	return res
}

// resultText joins a result's text contents.
func resultText(res *mcpgo.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := mcpgo.AsTextContent(c); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// wantError checks that res is an isError result whose text contains every want.
func wantError(t testing.TB, res *mcpgo.CallToolResult, want ...string) {
	t.Helper()
	if !res.IsError {
		t.Fatalf("want an isError result, got %s", resultText(res))
	}
	text := resultText(res)
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("error %q does not mention %q", text, w)
		}
	}
}

// wantOK checks that res succeeded, validates its structured content against the tool's output
// schema, and returns that content.
func wantOK(t testing.TB, tool string, res *mcpgo.CallToolResult) map[string]any {
	t.Helper()
	if res.IsError {
		t.Fatalf("%s failed: %s", tool, resultText(res))
	}
	sc := res.StructuredContent
	if raw, isRaw := sc.(json.RawMessage); isRaw { // a handler called directly, not over the protocol
		if err := json.Unmarshal(raw, &sc); err != nil {
			t.Fatalf("%s: structured content: %v", tool, err)
		}
	}
	m, ok := sc.(map[string]any)
	if !ok {
		t.Fatalf("%s: structured content is %T, want an object", tool, res.StructuredContent)
	}
	if err := validateOutput(tool, m); err != nil {
		t.Fatalf("%s: structured content does not match the output schema: %v\n%v", tool, err, m)
	}
	return m
}

var (
	schemasOnce sync.Once
	schemas     map[string]*jsonschema.Resolved
	schemasErr  error
)

// validateOutput validates v against tool's declared output schema.
func validateOutput(tool string, v any) error {
	schemasOnce.Do(func() {
		schemas = map[string]*jsonschema.Resolved{}
		for _, d := range catalog() {
			b, err := json.Marshal(d.tool.OutputSchema)
			if err != nil {
				schemasErr = err
				return
			}
			var s jsonschema.Schema
			if err := json.Unmarshal(b, &s); err != nil {
				schemasErr = err
				return
			}
			r, err := s.Resolve(nil)
			if err != nil {
				schemasErr = err
				return
			}
			schemas[d.tool.Name] = r
		}
	})
	if schemasErr != nil {
		return schemasErr
	}
	// Validate what went over the wire: numbers as float64, objects as maps.
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	var inst any
	if err := json.Unmarshal(b, &inst); err != nil {
		return err
	}
	return schemas[tool].Validate(inst)
}
