package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

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

// unknownToolProblem is the refusal of a tools/call whose params name a tool the gateway
// does not serve, or "".
func (g *Gateway) unknownToolProblem(method string, params json.RawMessage) string {
	if method != string(mcpgo.MethodToolsCall) {
		return ""
	}
	var p struct {
		Name *string `json:"name"`
	}
	if json.Unmarshal(params, &p) != nil || p.Name == nil || g.known[*p.Name] {
		return "" // mcp-go's to answer, as before
	}
	return fmt.Sprintf("tool %q not found%s; tools/list lists the %d tools this gateway serves",
		typo.Shown(*p.Name), g.toolHint(*p.Name), len(g.known))
}

// toolHint is `: did you mean "NAME"?` for the served tool name most likely meant (the same
// name in another case first), or "".
func (g *Gateway) toolHint(name string) string {
	if near, ok := typo.Nearest(name, slices.Sorted(maps.Keys(g.known))); ok {
		return fmt.Sprintf(": did you mean %q?", near)
	}
	return ""
}
