package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/corral-farm/corral/broker"
)

// Reasons of corral_gateway_denied_total: a fixed set, so zeros show.
const (
	reasonNoToken  = "no_token"     // /mcp without a bearer token
	reasonBadToken = "bad_token"    // a token no principal has
	reasonHost     = "host"         // Host header refused (DNS rebinding)
	reasonOrigin   = "origin"       // Origin header refused
	reasonTool     = "tool"         // the principal may not call the tool
	reasonDevice   = "device"       // the principal may not use the device
	reasonRate     = "rate"         // the device's rate limit
	reasonQueue    = "queue"        // too many calls waiting for the device
	reasonBody     = "body"         // a request body over --max-body
	reasonSlowBody = "slow_body"    // a request body that did not arrive within --read-timeout
	reasonBadBody  = "bad_body"     // a request body that could not be read: malformed chunks, cut short
	reasonSession  = "session"      // a session id not issued to the caller
	reasonHolder   = "holder"       // abort_task of a task another principal holds the device for; release of its lease (release_hidden.go)
	reasonQuota    = "quota"        // a lease beyond the principal's max_devices (quota.go)
	reasonProfile  = "profile"      // a catalog tool this gateway's --tools leaves out (unknown_tool.go)
	reasonUnknown  = "unknown_tool" // a tool no gateway serves: a typo, or a client newer than the gateway (unknown_tool.go)
)

var denyReasons = []string{reasonNoToken, reasonBadToken, reasonHost, reasonOrigin, reasonTool, reasonDevice, reasonRate, reasonQueue,
	reasonBody, reasonSlowBody, reasonBadBody, reasonSession, reasonHolder, reasonQuota, reasonProfile, reasonUnknown}

// authKey carries the caller of one HTTP request through mcp-go to the tool handlers.
type authKey struct{}

// callAuth is the caller of one request, and the tool a tools/call names (see toolFilter).
type callAuth struct {
	p *Principal

	mu      sync.Mutex
	calling string
}

func (a *callAuth) setCalling(tool string) {
	a.mu.Lock()
	a.calling = tool
	a.mu.Unlock()
}

func (a *callAuth) isCalling(tool string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.calling == tool
}

func withAuth(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, authKey{}, &callAuth{p: p})
}

func authFrom(ctx context.Context) *callAuth {
	a, _ := ctx.Value(authKey{}).(*callAuth)
	return a
}

// principal returns the caller: anonymous without a policy; with one, the principal its
// bearer token named, or nil for a call that did not come through the HTTP front door (an
// in-process or stdio server has no token to check, so it gets nothing).
func (g *Gateway) principal(ctx context.Context) *Principal {
	if g.opts.Policy == nil {
		return anonymous
	}
	if a := authFrom(ctx); a != nil {
		return a.p
	}
	return nil
}

// authenticate is the HTTP middleware of /mcp: with a policy, a request without a known
// bearer token gets 401; the principal goes into the request's context. The Authorization
// header is removed before mcp-go sees the request, so no log, hook or handler below can
// show the token.
func (g *Gateway) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, hasToken := bearerToken(r.Header.Get("Authorization"))
		if _, sent := r.Header["Authorization"]; sent {
			r = r.Clone(r.Context())
			r.Header.Del("Authorization")
		}
		if g.opts.Policy == nil {
			next.ServeHTTP(w, r)
			return
		}
		p := g.opts.Policy.authenticate(token)
		if !hasToken || p == nil {
			reason, msg := reasonNoToken, "unauthorized: this gateway needs a bearer token: send the header 'Authorization: Bearer <token>' (ask the farm's operator for a token; docs/auth.md)"
			if hasToken {
				reason, msg = reasonBadToken, "unauthorized: the bearer token is not valid for this gateway (check the token, or ask the farm's operator for one; docs/auth.md)"
			}
			g.refusedUnauthenticated(r, reason)
			unauthorized(w, msg)
			return
		}
		next.ServeHTTP(w, r.WithContext(withAuth(r.Context(), p)))
	})
}

// bearerToken takes the token out of an Authorization header ("Bearer <token>"; the scheme
// is case-insensitive).
func bearerToken(h string) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// unauthorized answers 401 with a JSON-RPC error body, which MCP clients show as it is.
func unauthorized(w http.ResponseWriter, msg string) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="corral"`)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusUnauthorized)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // keep "<token>" readable
	_ = enc.Encode(map[string]any{
		"jsonrpc": "2.0", "id": nil,
		"error": map[string]any{"code": -32001, "message": msg},
	})
}

// policyFilter hides from tools/list the tools the caller may not call. mcp-go applies the
// same filter to tools/call and answers a hidden tool with a protocol error ("not found");
// a refusal an agent can act on is an isError result naming the rule, so the filter lets
// through the one tool a tools/call names (recorded by beforeCall) and authorize refuses it.
func policyFilter(ctx context.Context, tools []mcpgo.Tool) []mcpgo.Tool {
	a := authFrom(ctx)
	return slices.DeleteFunc(tools, func(t mcpgo.Tool) bool {
		return a == nil || (!a.p.MayCall(t.Name) && !a.isCalling(t.Name))
	})
}

// beforeCall records the tool a tools/call names, for policyFilter.
func beforeCall(ctx context.Context, _ any, req *mcpgo.CallToolRequest) {
	if a := authFrom(ctx); a != nil {
		a.setCalling(req.Params.Name)
	}
}

// serverHooks are the MCP server's hooks: the tool a tools/call names, for policyFilter (a
// no-op without a policy), and that a session's client set a logging level (noteLevelSet).
func serverHooks() *mcpserver.Hooks {
	hooks := &mcpserver.Hooks{}
	hooks.AddBeforeCallTool(beforeCall)
	hooks.AddAfterSetLevel(noteLevelSet)
	return hooks
}

// authorize wraps a tool's handler: a caller who may not call the tool, or may not use the
// device its serial names, is refused before the handler runs, so nothing reaches a node.
// Tools that find their device otherwise (the session's selection) check it in resolveDevice.
func (g *Gateway) authorize(tool string, h mcpserver.ToolHandlerFunc) mcpserver.ToolHandlerFunc {
	if g.opts.Policy == nil {
		return h
	}
	return func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		p := g.principal(ctx)
		switch {
		case p == nil:
			return g.deny(ctx, denial{reason: reasonNoToken, tool: tool, rule: ruleNoCaller},
				fmt.Sprintf("denied by policy: %s has no authenticated caller (rule: %s)", tool, ruleNoCaller)), nil
		case !p.MayCall(tool):
			return g.deny(ctx, denial{reason: reasonTool, tool: tool, rule: p.toolRule()}, fmt.Sprintf("denied by policy: principal %q may not call %s (rule: %s); tools/list shows the tools it may call",
				p.Name, tool, p.toolRule())), nil
		}
		if serial, ok := req.GetArguments()[argSerial].(string); ok && serial != "" {
			// release_device and list_leases of the caller's own lease: its principal may, whatever
			// the device's tags now (release_own.go).
			if dev, known := g.farm.Device(serial); known && (!ownLeaseTool(tool) || !g.ownsLease(ctx, dev)) {
				if res := g.denyDevice(ctx, dev); res != nil {
					return res, nil
				}
			}
		}
		return h(ctx, req)
	}
}

// mayUse reports whether the caller may use dev.
func (g *Gateway) mayUse(ctx context.Context, dev broker.DeviceEntry) bool {
	p := g.principal(ctx)
	return p != nil && p.MayUse(dev.Tags)
}

// mayUseSerial reports whether the caller may use the device with this serial. A device the
// registry no longer knows is allowed only to callers without tag limits.
func (g *Gateway) mayUseSerial(ctx context.Context, serial string) bool {
	p := g.principal(ctx)
	if p == nil || len(p.Tags) == 0 {
		return p != nil
	}
	dev, ok := g.farm.Device(serial)
	return ok && p.MayUse(dev.Tags)
}

// callerTags are the device tags the caller is limited to; nil for no limit.
func (g *Gateway) callerTags(ctx context.Context) []string {
	if p := g.principal(ctx); p != nil {
		return p.Tags
	}
	return nil
}

// denyDevice refuses a device the caller may not use, naming the rule; nil if it may.
func (g *Gateway) denyDevice(ctx context.Context, dev broker.DeviceEntry) *mcpgo.CallToolResult {
	p := g.principal(ctx)
	switch {
	case p == nil:
		return g.deny(ctx, denial{reason: reasonNoToken, serial: dev.Serial, rule: ruleNoCaller}, "denied by policy: no authenticated caller (rule: "+ruleNoCaller+")")
	case p.MayUse(dev.Tags):
		return nil
	}
	return g.deny(ctx, denial{reason: reasonDevice, serial: dev.Serial, rule: p.tagRule()}, fmt.Sprintf("denied by policy: principal %q may not use device %s (rule: %s; the device has tags [%s]); list_available_devices shows the devices it may use",
		p.Name, dev.Serial, p.tagRule(), strings.Join(dev.Tags, " ")))
}

// ruleNoCaller is the rule that refuses a call without a caller when there is a policy.
const ruleNoCaller = "the gateway has an auth policy; call it over HTTP with a bearer token"

// deny answers a refused call: counted by reason, logged (denial_log.go), outcome refused,
// nothing ran. msg is the caller's; the log has d's fields, never the token or a lease handle.
func (g *Gateway) deny(ctx context.Context, d denial, msg string) *mcpgo.CallToolResult {
	g.metrics.deny(d.reason)
	g.logDenial(ctx, d)
	return g.refuse(ctx, denialCode(d.reason), msg)
}

// denialCode is the code of a refusal for reason: a principal's bound, the gateway's rate
// limit, or its policy.
func denialCode(reason string) string {
	switch reason {
	case reasonQuota:
		return broker.CodeQuota
	case reasonQueue:
		return broker.CodeQueueFull
	case reasonRate:
		return codeRateLimited
	}
	return broker.CodeDenied
}

// authorizeSteps applies the tool policy to each step of a sequence: a step runs its tool on
// the device as a call of its own would, so a principal that may not call input may not run it
// as a step either. It reads the step tools' names from the raw arguments, before the steps'
// arguments are checked, so that the argument errors of a tool outside the rule do not tell
// its arguments. The device is the sequence's own, checked by resolveDevice.
func (g *Gateway) authorizeSteps(ctx context.Context, tool string, args map[string]any) *mcpgo.CallToolResult {
	if tool != toolSequence || g.opts.Policy == nil {
		return nil
	}
	p := g.principal(ctx)
	if p == nil {
		return g.deny(ctx, denial{reason: reasonNoToken, tool: tool, rule: ruleNoCaller},
			fmt.Sprintf("denied by policy: %s has no authenticated caller (rule: %s)", tool, ruleNoCaller))
	}
	for _, s := range stepTools(args) {
		if !p.MayCall(s.name) {
			rule := fmt.Sprintf("%s; step %d of %s", p.toolRule(), s.number, tool)
			return g.deny(ctx, denial{reason: reasonTool, tool: s.name, rule: rule}, fmt.Sprintf("denied by policy: principal %q may not call %s, which step %d of %s names (rule: %s); tools/list shows the tools it may call",
				p.Name, s.name, s.number, tool, p.toolRule()))
		}
	}
	return nil
}
