package bench

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/corral-farm/corral/nodes/tools"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
)

// noopServer is a bare mcp-go server with one tool shaped like get_screen_size (the same
// common arguments and output schema) whose handler answers at once: what MCP costs before
// Corral does anything.
func noopServer() *mcpserver.MCPServer { return floorServer(nil) }

// floorServer is noopServer whose tool first runs hop, when there is one: with a bare NATS
// request/reply, the floors chained (chainURL).
func floorServer(hop func() error) *mcpserver.MCPServer {
	s := mcpserver.NewMCPServer("noop", "0", mcpserver.WithToolCapabilities(false), mcpserver.WithLogging(), mcpserver.WithRecovery())
	tool := mcpgo.NewTool(nopTool, mcpgo.WithDescription("Get the device's screen size in pixels."),
		mcpgo.WithReadOnlyHintAnnotation(true), mcpgo.WithOutputSchema[tools.ScreenSizeResult](),
		mcpgo.WithString("platform", mcpgo.Description("Device platform")),
		mcpgo.WithString("serial", mcpgo.MaxLength(256), mcpgo.Description("Device serial")),
		mcpgo.WithString("lease", mcpgo.MaxLength(128), mcpgo.Description("Lease handle")),
		mcpgo.WithInteger("timeout_ms", mcpgo.Min(1), mcpgo.Description("Deadline in milliseconds")),
		mcpgo.WithNumber("wait_seconds", mcpgo.Min(0), mcpgo.Description("Wait in the queue up to this long")),
	)
	data, _ := json.Marshal(tools.ScreenSizeResult{Width: 1080, Height: 2400, Message: "screen size: 1080x2400 pixels"})
	s.AddTool(tool, func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		if hop != nil {
			if err := hop(); err != nil {
				return nil, err
			}
		}
		return mcpgo.NewToolResultStructured(json.RawMessage(data), string(data)), nil
	})
	return s
}

// noopClient returns an initialized client of a no-op server, in-process or over HTTP.
func noopClient(b *testing.B, overHTTP bool) *client.Client {
	b.Helper()
	s := noopServer()
	var c *client.Client
	var err error
	if overHTTP {
		hs := httptest.NewServer(mcpserver.NewStreamableHTTPServer(s, mcpserver.WithStreamableHTTPLogger(slog.New(slog.DiscardHandler))))
		b.Cleanup(hs.Close)
		c, err = client.NewStreamableHttpClient(hs.URL, transport.WithHTTPLogger(slog.New(slog.DiscardHandler)))
	} else {
		c, err = client.NewInProcessClient(s)
	}
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = c.Close() })
	initialize(b, c, "bench-noop")
	return c
}
