package mcp

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/buildinfo"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/tools"
)

// Options configure a Gateway.
type Options struct {
	// Ready reports whether the gateway can serve (NATS connected, registry loaded).
	Ready func() error
	// Gatherer serves /metrics; nil serves the default empty registry.
	Gatherer prometheus.Gatherer
	// Tools are the names of the tools to serve (see SelectTools), in the order tools/list
	// gives them (a profile's is its seed's); nil serves the whole catalog in its order.
	Tools []string
	// Policy, when set, requires a bearer token on /mcp and limits each principal's tools and
	// devices (LoadPolicy, docs/auth.md); nil serves everyone as "anonymous".
	Policy *Policy
	// AllowedOrigins adds hosts and origins to the loopback-only Host/Origin check (see
	// ValidateOrigins); invalid entries are logged and ignored.
	AllowedOrigins []string
	// RateLimit bounds the calls this gateway sends to each device; zero: no limit.
	RateLimit RateLimit
	// Platforms are the platforms the farm's nodes have drivers for (cmd/corral registers
	// them): the platform argument offers their names, and a tool a device cannot serve names
	// those whose drivers can. None: the platform argument takes any string.
	Platforms []device.Platform
	// Limits bound request bodies, slow and idle connections and protocol sessions (bounds.go);
	// zero fields take their defaults.
	Limits Limits
	// ProgressEvery is how often a call whose client sent a progress token is told, while it
	// waits (in a device's queue, for a lease), what it waits for (progress_wait.go); zero:
	// DefaultProgressEvery.
	ProgressEvery time.Duration
	// SessionKeys chooses the key session ids and console cookies are issued under; zero:
	// SessionKeysPrincipal.
	SessionKeys SessionKeys
	// SessionSecret is the farm's gateway secret (broker.GatewaySecret), in every key of the
	// session ids and console cookies of a Policy's principals. Nil: the farm's, read from it
	// when it offers it (a broker.Client), else one of this gateway's own (what it issues then
	// works with it alone, until it stops). Unused without a Policy.
	SessionSecret []byte
}

// Gateway is the MCP front door: the MCP server and its HTTP endpoints.
type Gateway struct {
	farm    Farm
	log     *slog.Logger
	opts    Options
	metrics *Metrics
	server  *mcpserver.MCPServer
	limiter *limiter // nil: no rate limit
	limits  Limits   // with defaults filled in

	progressEvery time.Duration // Options.ProgressEvery, defaulted

	sessions   *sessions
	streamable *mcpserver.StreamableHTTPServer
	known      map[string]bool // the tools served
	agents     *agentRuns      // the background tasks on their way through this gateway
	inFlight   *inFlight       // the other device calls on their way (latest_in_flight.go)
	denials    *denialLog      // the policy's denials, logged once each (denial_log.go)
}

// New returns a gateway serving the whole catalog over farm.
func New(farm Farm, log *slog.Logger, metrics *Metrics, opts Options) *Gateway {
	g := &Gateway{farm: farm, log: log, opts: opts, metrics: metrics, limiter: newLimiter(opts.RateLimit),
		limits: opts.Limits.withDefaults(), known: map[string]bool{}, agents: newAgentRuns(), inFlight: newInFlight(), denials: newDenialLog(log)}
	g.progressEvery = cmp.Or(opts.ProgressEvery, DefaultProgressEvery)
	g.farm = newKeyedSessions(g, farm) // sessions' entries under their principal, bounded
	if opts.Policy != nil {
		g.farm = &quotaFarm{Farm: g.farm, g: g, asking: map[string]int{}}
	}
	defs := servedDefs(catalog(tools.Platforms(opts.Platforms)...), opts.Tools)
	serverOpts := []mcpserver.ServerOption{
		mcpserver.WithToolCapabilities(false),
		mcpserver.WithToolFilter(catalogOrder(defs)),
		mcpserver.WithLogging(),
		mcpserver.WithRecovery(),
		mcpserver.WithInstructions(instructions),
		mcpserver.WithHooks(serverHooks()),
	}
	if opts.Policy != nil {
		serverOpts = append(serverOpts, mcpserver.WithToolFilter(policyFilter)) // after catalogOrder
		log.Info("auth policy: /mcp needs a bearer token", "principals", opts.Policy.Principals())
	}
	g.server = mcpserver.NewMCPServer("corral", buildinfo.Version(), serverOpts...)
	tools := make([]mcpserver.ServerTool, 0, len(defs))
	for _, d := range defs {
		h := g.authorize(d.tool.Name, d.handler(g))
		if !d.device {
			h = g.capped(d.tool.Name, h)
		}
		tools = append(tools, mcpserver.ServerTool{Tool: frozen(d.tool), Handler: g.instrument(d.tool.Name, h)})
		metrics.knowTool(d.tool.Name)
		g.known[d.tool.Name] = true
	}
	g.server.AddTools(tools...)
	g.sessions = newSessions(opts.Policy, opts.SessionKeys, g.sessionSecret(), g.limits, log, func(ctx context.Context) string {
		if p := g.principal(ctx); p != nil {
			return p.Name
		}
		return ""
	})
	g.streamable = mcpserver.NewStreamableHTTPServer(g.server,
		mcpserver.WithStreamableHTTPLogger(log),
		mcpserver.WithHeartbeatInterval(15*time.Second),
		mcpserver.WithDisableLocalhostProtection(true), // originCheck does it, with exceptions
		mcpserver.WithSessionIdManagerResolver(g.sessions),
		mcpserver.WithHTTPContextFunc(g.sessionClient), // a session taken up keeps its holder
	)
	g.sessions.end = func(id string) { endSession(g.streamable, id) }
	g.sessions.counted = metrics.countSessions(opts.Policy, g.limits.MaxSessions)
	return g
}

// knownTool reports whether the gateway serves tool.
func (g *Gateway) knownTool(tool string) bool { return g.known[tool] }

const instructions = `Corral is a device farm. Call list_available_devices to see devices, acquire_device (or select_device) to hold one, then call device tools with its serial and the lease handle. Every device tool also takes: platform (optional; must match the device if given), serial (optional after select_device in a session), lease (the handle; without one a free device runs the call under a one-call lease), timeout_ms (deadline for this call; each tool has a default) and wait_seconds (wait this long in the device's queue instead of being refused as busy; with your lease you need none: your calls wait behind your running one). Every tool that acts on a device, and every HttpRunner tool, also takes HttpRunner's six general options: pre_mark_operation (save the screen acted on with the target marked; get_task_result markedScreenshots shows it), anti_risk (human-like touches on android and ios), and ignore_NotFoundError (not found is no error), regex (the text to find is an RE2 pattern), max_retry_times (look, or swipe, again up to N times) and index (which match: 0 first, -1 last), which the tools that search (tap_ocr, tap_cv, swipe_to_tap_*, the by-selector tools) use and the others ignore. Coordinates: relative 0-1 (tap_xy), absolute pixels (tap_abs_xy), or a bbox [left,top,right,bottom] in 0-1 (tap, long_press, swipe act at its centre; peek lists the screen's elements with their bboxes). A busy answer names the holder. release_device when done.`

// catalogOrder returns a tool filter that puts tools/list in the order of defs (mcp-go sorts
// by name): the catalog's, or a profile's, its seed's wire order (servedDefs).
func catalogOrder(defs []toolDef) mcpserver.ToolFilterFunc {
	rank := make(map[string]int, len(defs))
	for i, d := range defs {
		rank[d.tool.Name] = i
	}
	return func(_ context.Context, tools []mcpgo.Tool) []mcpgo.Tool {
		slices.SortStableFunc(tools, func(a, b mcpgo.Tool) int { return rank[a.Name] - rank[b.Name] })
		return tools
	}
}

// MCPServer returns the underlying MCP server, for the stdio transport and in-process clients.
func (g *Gateway) MCPServer() *mcpserver.MCPServer { return g.server }

// Handler serves /mcp (streamable HTTP), the console (/ and /console/, console.go), /metrics,
// /healthz and /readyz. Every path has the Host/Origin check (origin.go) and a deadline to
// arrive whole (bounds.go); with a policy, /mcp and the console need a bearer token (auth.go)
// while /metrics, /healthz and /readyz stay open for probes and scrapers. /mcp then, in this
// order: answers an HTTP method the transport has not with 405 (methods.go), refuses an
// oversized body before reading it, checks the token, refuses a session id
// not issued to the caller (sessions.go), reads the body, names the protocol versions to a
// client sending another (protocol_version.go), splits batches (batch.go), and for each
// message: tells a client that skipped initialize to send it (session_required.go), bounds
// the GET streams of a session (listen_streams.go), answers in the protocol's words what
// mcp-go would in Go's (message_shape.go) and arguments beyond float64 (numbers.go), sends a
// call's notifications on its own response (call_stream.go), and hands the rest to mcp-go.
func (g *Gateway) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/mcp", g.allowedMethods(g.limitBody(g.authenticate(g.sessions.guard(g, g.bufferBody(g.protocolVersion(g.batches(
		g.sessionRequired(g.boundListenStreams(g.messageShape(g.hugeNumbers(g.cacheToolsList(g.callStreams(g.streamable))))))))))))))
	gatherer := g.opts.Gatherer
	if gatherer == nil {
		gatherer = prometheus.NewRegistry()
	}
	// The device wall (mcp/console) at / and under /console/: the same Host/Origin check and
	// deadlines as every path, the same tokens as /mcp (also from its login cookie).
	wall, wallMetrics := g.console()
	mux.Handle("/", withRemote(wall)) // /mcp's requests carry theirs with their body (bounds.go)
	mux.Handle("/metrics", promhttp.HandlerFor(prometheus.Gatherers{gatherer, wallMetrics}, promhttp.HandlerOpts{}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		// A NATS connection closed for good never comes back (broker.ConnAlive): fail, so that
		// the orchestrator restarts the process. One that is reconnecting fails /readyz only.
		if a, ok := farmAs[interface{ Alive() error }](g.farm); ok { // through the wrappers (quota, keyed sessions)
			if err := a.Alive(); err != nil {
				http.Error(w, "unhealthy: "+err.Error(), http.StatusServiceUnavailable)
				return
			}
		}
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
	oc, err := newOriginCheck(g.opts.AllowedOrigins)
	if err != nil {
		g.log.Error("ignoring --allowed-origins: only loopback hosts and origins are allowed", "err", err)
		oc = &originCheck{}
	}
	// tokenOffUncleanPath before ServeMux's own redirect, which keeps a ?token=.
	return g.readDeadline(oc.wrap(g, tokenOffUncleanPath(mux)))
}

// instrument counts and times every call of a tool by outcome.
func (g *Gateway) instrument(name string, h mcpserver.ToolHandlerFunc) mcpserver.ToolHandlerFunc {
	succeeded := g.metrics.seriesOf(name, broker.OutcomeSucceeded) // most calls': looked up once
	return func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		start := time.Now()
		ctx, slot := withCallSlot(ctx, name)
		res, err := h(ctx, req)
		if slot.outcome == "" {
			slot.outcome = broker.OutcomeSucceeded
			if err != nil || (res != nil && res.IsError) {
				slot.outcome = broker.OutcomeFailed
			}
		}
		if slot.outcome == broker.OutcomeSucceeded {
			succeeded.observe(time.Since(start))
		} else {
			g.metrics.observeCall(name, slot.outcome, time.Since(start))
		}
		return res, err
	}
}

// progressSink returns where a task's progress goes: notifications/progress, increasing,
// when the client sent a progress token (callProgress), info-level logging messages otherwise
// for long tools (to a client that wants them: wantsInfoLogs). It returns nil when there is
// nothing to send, so that short calls do not pay for a progress subscription.
func (g *Gateway) progressSink(ctx context.Context, req mcpgo.CallToolRequest, long bool) func(broker.Progress) {
	if p := newCallProgress(ctx, req); p != nil {
		return p.task
	}
	srv := mcpserver.ServerFromContext(ctx)
	if srv == nil || !long || !wantsInfoLogs(ctx) {
		return nil
	}
	return func(p broker.Progress) {
		// Sent as it is: mcp-go's SendLogMessageToClient would hold it back at its default
		// level (error) for a client that never set one, and the seed's clients never do.
		notifyCall(ctx, srv, string(mcpgo.MethodNotificationMessage),
			map[string]any{"level": mcpgo.LoggingLevelInfo, "logger": progressLogger(req.Params.Name), "data": p.Message})
	}
}

// holderFrom names the caller: the principal its bearer token named (anonymous without an
// auth policy), the MCP client's name when the session carries it, as clientLabel makes it
// fit to show (the client chose it), and the session's tag (two sessions of one principal
// hold and queue apart; quotas stay the principal's).
func holderFrom(ctx context.Context) broker.Holder {
	h := broker.Holder{Principal: anonymous.Name}
	if a := authFrom(ctx); a != nil {
		h.Principal = a.p.Name
	}
	if s, ok := mcpserver.ClientSessionFromContext(ctx).(mcpserver.SessionWithClientInfo); ok {
		h.Client = clientLabel(s.GetClientInfo().Name)
	}
	h.Session = callerTag(ctx)
	return h
}

// frozen returns the tool with its schemas encoded once: mcp-go re-encodes a structured schema
// on every tools/list and every tools/call (to look for header bindings); raw JSON it reuses.
// The wire form is also slimmed (see slim): tools/list is paid for in every agent's context.
func frozen(t mcpgo.Tool) mcpgo.Tool {
	if in, err := slim(t.InputSchema); err == nil {
		t.RawInputSchema, t.InputSchema = in, mcpgo.ToolInputSchema{}
	}
	if t.OutputSchema.Type != "" {
		if out, err := slim(t.OutputSchema); err == nil {
			t.RawOutputSchema, t.OutputSchema = out, mcpgo.ToolOutputSchema{}
		}
	}
	return t
}

// slim encodes a schema without what every tool would repeat for nothing: empty "required"
// lists and "additionalProperties": false (results are checked against the strict schemas in
// the tests; arguments are checked strictly by the handlers).
func slim(schema any) (json.RawMessage, error) {
	b, err := json.Marshal(schema)
	if err != nil {
		return nil, err
	}
	var tree any
	if err := json.Unmarshal(b, &tree); err != nil {
		return nil, err
	}
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if ap, ok := v["additionalProperties"].(bool); ok && !ap {
				delete(v, "additionalProperties")
			}
			if r, ok := v["required"].([]any); ok && len(r) == 0 {
				delete(v, "required")
			}
			for _, c := range v {
				walk(c)
			}
		case []any:
			for _, c := range v {
				walk(c)
			}
		}
	}
	walk(tree)
	return json.Marshal(tree)
}
