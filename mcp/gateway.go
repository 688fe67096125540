package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/corral-farm/corral/broker"
)

// Version is reported to MCP clients as the server version.
var Version = "0.1.0-dev"

// Options configure a Gateway.
type Options struct {
	// Ready reports whether the gateway can serve (NATS connected, registry loaded).
	Ready func() error
	// Gatherer serves /metrics; nil serves the default empty registry.
	Gatherer prometheus.Gatherer
}

// Gateway is the MCP front door: the MCP server and its HTTP endpoints.
type Gateway struct {
	farm    Farm
	log     *slog.Logger
	opts    Options
	metrics *Metrics
	server  *mcpserver.MCPServer
}

// New returns a gateway serving the whole catalog over farm.
func New(farm Farm, log *slog.Logger, metrics *Metrics, opts Options) *Gateway {
	g := &Gateway{farm: farm, log: log, opts: opts, metrics: metrics}
	g.server = mcpserver.NewMCPServer("corral", Version,
		mcpserver.WithToolCapabilities(false),
		mcpserver.WithLogging(),
		mcpserver.WithRecovery(),
		mcpserver.WithInstructions(instructions),
	)
	defs := catalog()
	tools := make([]mcpserver.ServerTool, 0, len(defs))
	for _, d := range defs {
		tools = append(tools, mcpserver.ServerTool{Tool: frozen(d.tool), Handler: g.instrument(d.tool.Name, d.handler(g))})
		metrics.knowTool(d.tool.Name)
	}
	g.server.AddTools(tools...)
	return g
}

const instructions = `Corral is a device farm. Call list_available_devices to see devices, acquire_device (or select_device) to hold one, then call device tools with its serial and the lease handle. Coordinates: relative 0-1 (tap_xy), absolute pixels (tap_abs_xy), or a bbox [left,top,right,bottom] in 0-1 (tap, long_press, swipe act at its centre; peek lists the screen's elements with their bboxes). A busy answer names the holder; pass wait_seconds to queue. release_device when done.`

// MCPServer returns the underlying MCP server, for the stdio transport and in-process clients.
func (g *Gateway) MCPServer() *mcpserver.MCPServer { return g.server }

// Handler serves /mcp (streamable HTTP), /metrics, /healthz and /readyz.
func (g *Gateway) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcpserver.NewStreamableHTTPServer(g.server,
		mcpserver.WithStreamableHTTPLogger(g.log),
		mcpserver.WithHeartbeatInterval(15*time.Second),
	))
	gatherer := g.opts.Gatherer
	if gatherer == nil {
		gatherer = prometheus.NewRegistry()
	}
	mux.Handle("/metrics", promhttp.HandlerFor(gatherer, promhttp.HandlerOpts{}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if g.opts.Ready != nil {
			if err := g.opts.Ready(); err != nil {
				http.Error(w, "not ready: "+err.Error(), http.StatusServiceUnavailable)
				return
			}
		}
		fmt.Fprintln(w, "ready")
	})
	return mux
}

// instrument counts and times every call of a tool by outcome.
func (g *Gateway) instrument(name string, h mcpserver.ToolHandlerFunc) mcpserver.ToolHandlerFunc {
	return func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		start := time.Now()
		ctx, outcome := withOutcomeSlot(ctx)
		res, err := h(ctx, req)
		if *outcome == "" {
			*outcome = broker.OutcomeSucceeded
			if err != nil || (res != nil && res.IsError) {
				*outcome = broker.OutcomeFailed
			}
		}
		g.metrics.observeCall(name, *outcome, time.Since(start))
		return res, err
	}
}

// progressSink returns where a task's progress goes: notifications/progress when the client
// sent a progress token, logging messages otherwise for long tools. It returns nil when there
// is nothing to send, so that short calls do not pay for a progress subscription.
func (g *Gateway) progressSink(ctx context.Context, req mcpgo.CallToolRequest, long bool) func(broker.Progress) {
	var token mcpgo.ProgressToken
	if req.Params.Meta != nil {
		token = req.Params.Meta.ProgressToken
	}
	srv := mcpserver.ServerFromContext(ctx)
	if srv == nil || (token == nil && !long) {
		return nil
	}
	if token != nil {
		return func(p broker.Progress) {
			params := map[string]any{"progressToken": token, "progress": p.Progress}
			if p.Total > 0 {
				params["total"] = p.Total
			}
			if p.Message != "" {
				params["message"] = p.Message
			}
			_ = srv.SendNotificationToClient(ctx, string(mcpgo.MethodNotificationProgress), params)
		}
	}
	return func(p broker.Progress) {
		_ = srv.SendLogMessageToClient(ctx, mcpgo.NewLoggingMessageNotification(mcpgo.LoggingLevelInfo, "corral", p.Message))
	}
}

// holderFrom names the caller: the principal (anonymous until auth exists) and the MCP
// client's name when the session carries it.
func holderFrom(ctx context.Context) broker.Holder {
	h := broker.Holder{Principal: "anonymous"}
	if s, ok := mcpserver.ClientSessionFromContext(ctx).(mcpserver.SessionWithClientInfo); ok {
		h.Client = s.GetClientInfo().Name
	}
	return h
}

// frozen returns the tool with its schemas encoded once: mcp-go re-encodes a structured schema
// on every tools/list and every tools/call (to look for header bindings); raw JSON it reuses.
func frozen(t mcpgo.Tool) mcpgo.Tool {
	if in, err := json.Marshal(t.InputSchema); err == nil {
		t.RawInputSchema, t.InputSchema = in, mcpgo.ToolInputSchema{}
	}
	if t.OutputSchema.Type != "" {
		if out, err := json.Marshal(t.OutputSchema); err == nil {
			t.RawOutputSchema, t.OutputSchema = out, mcpgo.ToolOutputSchema{}
		}
	}
	return t
}
