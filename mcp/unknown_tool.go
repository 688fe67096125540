package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sync"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/internal/typo"
)

// A tools/call of a tool the gateway does not serve is a protocol error (-32602), as MCP has
// it; mcp-go's words quote the whole name however long ("tool '…5,000 characters…' not
// found") and suggest nothing. The gateway answers it instead, with the name cut short and
// the tool it most likely meant (typo.Shown, typo.Nearest: the same name in another case,
// TAP_XY, else the nearest name, tap_xi), as corral call and corral run's steps do. Tools a
// policy hides are served, and refused by authorize in words an agent can act on.

// mayCallUnknownTool says, from body's bytes, whether it may be a tools/call of a tool the
// gateway does not serve: false for every call of a served tool, at the cost of a few
// searches and map lookups, as some "name" in its params names a served tool (the client's
// name in _meta and an argument called name come before the tool's as often as not). True
// only asks for a decoding (unknownToolProblem), which tells for sure; a call of an unknown
// tool with an argument named as a served tool is let by, to mcp-go's words.
func (g *Gateway) mayCallUnknownTool(body []byte) bool {
	if !bytes.Contains(body, []byte(`"tools/call"`)) {
		return false
	}
	params, ok := valueAfter(body, `"params"`)
	for ok {
		var name []byte
		if name, ok = valueAfter(params, `"name"`); !ok {
			break
		}
		params = name
		if name[0] != '"' {
			continue
		}
		if end := bytes.IndexByte(name[1:], '"'); end >= 0 && g.known[string(name[1:1+end])] {
			return false
		}
	}
	return true
}

// unknownToolProblem is the refusal of a tools/call of r whose params name a tool the gateway
// does not serve, or "". A tool of the catalog that the gateway's --tools leaves out is
// refused as such, counted (corral_gateway_denied_total{reason="profile"}) and logged once
// a minute per client; a name no gateway serves (a typo, or a tool of a newer Corral) counts
// as reason="unknown_tool", logged alike with its name cut short: refused like the rest, so
// the dashboards' refusals by reason and CorralCallsDenied show a client calling it in a loop.
func (g *Gateway) unknownToolProblem(r *http.Request, method string, params json.RawMessage) string {
	if method != string(mcpgo.MethodToolsCall) {
		return ""
	}
	var p struct {
		Name *string `json:"name"`
	}
	if json.Unmarshal(params, &p) != nil || p.Name == nil || g.known[*p.Name] {
		return "" // mcp-go's to answer, as before
	}
	if catalogNames()[*p.Name] {
		g.refusedRequest(r, reasonProfile, "refused a call of a tool this gateway does not serve", "tool", *p.Name)
		return fmt.Sprintf("tool %q is not served by this gateway: its --tools leaves it out; tools/list lists the %d tools it serves",
			*p.Name, len(g.known))
	}
	g.refusedRequest(r, reasonUnknown, "refused a call of a tool no gateway serves", "tool", typo.Shown(*p.Name))
	return fmt.Sprintf("tool %q not found%s; tools/list lists the %d tools this gateway serves",
		typo.Shown(*p.Name), g.toolHint(*p.Name), len(g.known))
}

// catalogNames are the names of every tool of the catalog, served here or not: built once,
// at the first refusal (a catalog takes about 20 ms to build), never changed.
var catalogNames = sync.OnceValue(func() map[string]bool {
	names := map[string]bool{}
	for _, d := range catalog() {
		names[d.tool.Name] = true
	}
	return names
})

// toolHint is `: did you mean "NAME"?` for the served tool name most likely meant (the same
// name in another case first), or "".
func (g *Gateway) toolHint(name string) string {
	if near, ok := typo.Nearest(name, slices.Sorted(maps.Keys(g.known))); ok {
		return fmt.Sprintf(": did you mean %q?", near)
	}
	return ""
}
