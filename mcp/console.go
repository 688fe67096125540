package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/mcp/console"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/tools"
)

// console returns the device wall (package console) the gateway serves at /, and the registry
// of its metrics, which /metrics serves beside the others. It sees the farm as the front door
// does: the same policy, whose tag rules choose the devices each principal sees; without a
// policy everyone is anonymous, as on /mcp. Its refusals count in corral_gateway_denied_total.
// Its actions are the front door's own tool calls (consoleActions). A principal's cookies are
// keyed by its key of the stateless protocol session ids (session_keys.go): derived from the
// farm's gateway secret and its token hash, the same on every gateway of the farm, known to no
// other caller (not to one who read the policy file), and unchanged by changes to other
// principals; with --session-keys farm, what the farm-wide key of an older Corral keyed is taken
// too. Without a policy that key is public, and so is what it seals (a gateway without one
// serves everyone everything).
func (g *Gateway) console() (http.Handler, prometheus.Gatherer) {
	reg := prometheus.NewRegistry()
	cfg := console.Config{Farm: g.farm, Log: g.log.With("component", "console"), Metrics: console.NewMetrics(reg),
		Actions: consoleActions{g}}
	cfg.Key, cfg.OtherKey, _ = g.sessions.keys.issuing("")
	if h, ok := farmAs[console.History](g.farm); ok {
		cfg.History = h
	}
	if s, ok := farmAs[console.Screens](g.farm); ok {
		cfg.Screens = s
	}
	if r, ok := farmAs[console.Registry](g.farm); ok {
		cfg.Registry = r
	}
	if pol := g.opts.Policy; pol != nil {
		changing := slices.DeleteFunc(changingTools(), func(t string) bool { return !g.knownTool(t) }) // --tools may leave them out
		byName := make(map[string]console.Viewer, len(pol.principals))
		for _, p := range pol.principals {
			key, other, _ := g.sessions.keys.issuing(p.Name)
			v := viewerOf(p, key, changing)
			v.OtherKey = other // what a gateway of another Corral version set during a roll
			byName[p.Name] = v
		}
		cfg.Authenticate = func(token string) (console.Viewer, bool) {
			p := pol.authenticate(token)
			if p == nil {
				return console.Viewer{}, false
			}
			return byName[p.Name], true
		}
		cfg.Named = func(name string) (console.Viewer, bool) {
			v, ok := byName[name]
			return v, ok
		}
		cfg.Denied = g.refusedUnauthenticated
	}
	return console.New(cfg), reg
}

// viewerOf is the console's view of a principal: its tag rule, whether it may change devices at
// all (it may call any of changing: an operator's force release needs abort_task), which tools it may call and
// whether it is an operator, for what the console shows and the actions it offers; its token's
// hash, which the console's login cookie binds; and its key (session_keys.go), which keys its
// cookies.
func viewerOf(p *Principal, key []byte, changing []string) console.Viewer {
	return console.Viewer{Name: p.Name, Tags: p.Tags, MayUse: p.MayUse, MayAct: slices.ContainsFunc(changing, p.MayCall),
		MayCall: p.MayCall, Operator: p.Operator, Principal: p, Credential: p.hash[:], Key: key}
}

// changingTools are the catalog's tools that may change a device: those not marked read-only.
func changingTools() []string {
	var out []string
	for _, d := range catalog() {
		if h := d.tool.Annotations.ReadOnlyHint; h == nil || !*h {
			out = append(out, d.tool.Name)
		}
	}
	return out
}

// consoleClient names the console as the client of its calls: a lease it takes shows as held
// by "alice (console)".
const consoleClient = console.ClientName

// consoleActions carries out the console's actions as tools/call does: the tool's handler as
// the MCP server holds it (policy check, metrics), called with the viewer's principal, so that
// the console decides nothing an agent could not.
type consoleActions struct{ g *Gateway }

// Serves reports whether the gateway serves tool.
func (a consoleActions) Serves(tool string) bool { return a.g.knownTool(tool) }

// Supports reports whether devices of platform can run tool: the platform's drivers have the
// abilities tool needs and it is not among the platform's gaps (nodes/device Platform.Gaps: an
// iPhone has no Back). A platform the gateway was given no drivers for may run anything.
func (a consoleActions) Supports(platform, tool string) bool {
	if !slices.ContainsFunc(a.g.opts.Platforms, func(p device.Platform) bool { return p.Name == platform }) {
		return true
	}
	return slices.Contains(tools.ToolPlatforms(a.g.opts.Platforms, tool), platform)
}

// Call calls tool for the viewer.
func (a consoleActions) Call(ctx context.Context, v console.Viewer, tool string, args map[string]any) console.Answer {
	st := a.g.server.GetTool(tool)
	if st == nil {
		return console.Answer{Message: fmt.Sprintf("this gateway does not serve %s", tool)}
	}
	req := mcpgo.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = tool, args
	res, err := st.Handler(a.callerContext(ctx, v), req)
	switch {
	case err != nil:
		return console.Answer{Message: fmt.Sprintf("%s: %v", tool, err)}
	case res == nil:
		return console.Answer{Message: tool + " answered nothing"}
	}
	out := console.Answer{OK: !res.IsError, Message: textOf(res)}
	out.Denied = res.IsError && refusedWith(out.Message, broker.CodeDenied)
	serial, _ := args["serial"].(string)
	out.Busy = res.IsError && refusedAsBusy(tool, serial, out.Message)
	if res.StructuredContent != nil {
		out.Data, _ = json.Marshal(res.StructuredContent)
		var m struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(out.Data, &m) == nil && m.Message != "" {
			out.Message = m.Message // the text mirrors the whole structured result
		}
	}
	return out
}

// refusedAsBusy reports whether msg is failureText's refusal of tool on serial because another
// holds the device or runs a task on it: "tap_xy on n1-p1 refused (busy): …". The result has no
// code of its own, so the text is read, past the serial the console asked for: a serial may hold
// colons ("127.0.0.1:5555", every --sim-android phone) and parentheses. acquire_device of one
// serial wraps its node's refusal: "acquire_device refused (busy): no device matching
// serial=\"n1-p1\" could be leased: acquire_device on n1-p1 refused (busy): …". The gateway's
// own busy refusal of another tool ("run_agent_task refused (busy): Agent is already running …")
// is not: the console words a busy device by its holder, and its reason here is the gateway's
// (an agent task runs), so its words are shown as they are.
func refusedAsBusy(tool, serial, msg string) bool {
	_, rest, ok := refusalCode(msg)
	gatewayOwn := ok && strings.HasPrefix(msg, tool+" refused (")
	switch {
	case gatewayOwn && tool == "acquire_device": // busy if its node's refusal of serial says so
		msg = strings.TrimPrefix(rest, unleasedPrefix(&acquireArgs{Serial: serial}))
	case gatewayOwn:
		return false
	}
	rest, ok = strings.CutPrefix(msg, tool+" on "+serial+" ")
	if !ok || serial == "" {
		return false
	}
	head, _, _ := strings.Cut(rest, ":")
	return strings.HasSuffix(head, " ("+broker.CodeBusy+")") || strings.HasSuffix(head, " ("+broker.CodeWaitExpired+")")
}

// deniedByPolicy begins the words of every refusal by policy (auth.go), after its code.
const deniedByPolicy = "denied by policy"

// ForceRelease revokes serial's lease whoever holds it, as `corral release --force` does: an
// operator's action (policy key operator), as aborting the task of another's device is. It
// aborts the running task too, so the principal's tools rule must allow abort_task as well: an
// operator with tools [readonly] may abort nothing, here or anywhere. Without a policy everyone
// is anonymous and may, as they may abort anything.
func (a consoleActions) ForceRelease(ctx context.Context, v console.Viewer, serial string) console.Answer {
	g := a.g
	ctx = a.callerContext(ctx, v)
	const tool = "console force release"
	p := g.principal(ctx)
	switch {
	case g.opts.Policy == nil:
	case p == nil || !p.Operator:
		g.metrics.deny(reasonHolder)
		g.logDenial(ctx, denial{reason: reasonHolder, tool: tool, serial: serial, rule: "only an operator revokes another's lease"})
		return console.Answer{Denied: true, Message: fmt.Sprintf("%s: principal %q may not force the release of %s (rule: only an operator, policy key operator: true, "+
			"revokes another's lease); ask its holder, or an operator", deniedByPolicy, v.Name, serial)}
	case !p.MayCall(console.ForceReleaseObeys):
		g.metrics.deny(reasonTool)
		g.logDenial(ctx, denial{reason: reasonTool, tool: tool, serial: serial, rule: p.toolRule()})
		return console.Answer{Denied: true, Message: fmt.Sprintf("%s: principal %q may not force the release of %s, which aborts its running task: "+
			"it may not call %s (rule: %s); ask an operator whose tools include %s", deniedByPolicy, v.Name, serial, console.ForceReleaseObeys,
			p.toolRule(), console.ForceReleaseObeys)}
	}
	if dev, ok := g.farm.Device(serial); !ok || !g.mayUse(ctx, dev) {
		return console.Answer{Message: fmt.Sprintf("unknown device %q: no device in the farm has this serial, or your token may not use it", serial)}
	}
	ans, err := g.farm.Release(ctx, broker.ReleaseRequest{V: broker.WireVersion, Serial: serial, Force: true, By: holderFrom(ctx).String()})
	switch {
	case err != nil:
		return console.Answer{Message: fmt.Sprintf("force release of %s: %v", serial, err)}
	case !ans.OK:
		return console.Answer{Message: leaseRefusal("force release", serial, ans, broker.Holder{})}
	}
	msg := fmt.Sprintf("Revoked the lease of %s.", serial)
	if l := ans.Lease; l != nil {
		msg = fmt.Sprintf("Revoked the lease of %s held by %s (epoch %d); its running task, if any, was aborted.", serial, l.Holder, l.Epoch)
	}
	return console.Answer{OK: true, Message: msg}
}

// callerContext is the context of a tool call by the viewer: its principal, as the front
// door's authentication puts it, and a session without an id whose client is the console.
func (a consoleActions) callerContext(ctx context.Context, v console.Viewer) context.Context {
	if p, ok := v.Principal.(*Principal); ok {
		ctx = withAuth(ctx, p)
	}
	return a.g.server.WithContext(ctx, consoleSession{})
}

// textOf is a result's text content.
func textOf(res *mcpgo.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(mcpgo.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// consoleSession is the protocol session of the console's calls: none (no id, so no session
// default device or latest task is kept), but a client name for holderFrom.
type consoleSession struct{}

func (consoleSession) Initialize()                                           {}
func (consoleSession) Initialized() bool                                     { return true }
func (consoleSession) NotificationChannel() chan<- mcpgo.JSONRPCNotification { return nil }
func (consoleSession) SessionID() string                                     { return "" }
func (consoleSession) GetClientInfo() mcpgo.Implementation {
	return mcpgo.Implementation{Name: consoleClient}
}
func (consoleSession) SetClientInfo(mcpgo.Implementation) {}
func (consoleSession) GetClientCapabilities() mcpgo.ClientCapabilities {
	return mcpgo.ClientCapabilities{}
}
func (consoleSession) SetClientCapabilities(mcpgo.ClientCapabilities) {}

var (
	_ console.Actions                 = consoleActions{}
	_ mcpserver.SessionWithClientInfo = consoleSession{}
)
