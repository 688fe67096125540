package steps

import (
	"slices"

	"github.com/corral-farm/corral/mcp"
)

// servedProfile names the --tools profile whose tools are exactly those listed, "" for none.
// Its initialize answer does not say which profile a gateway serves, but its tools/list does:
// a token's policy, the other reason a tool is left out, rarely leaves just a profile's set.
func servedProfile(listed []string) string {
	for _, p := range mcp.ProfileNames() {
		names, err := mcp.SelectTools(p)
		if err != nil || names == nil { // nil: all, every tool
			continue
		}
		if len(names) == len(listed) && !slices.ContainsFunc(names, func(n string) bool { return !slices.Contains(listed, n) }) {
			return p
		}
	}
	return ""
}

// profilesWith names the profiles but all that serve tool.
func profilesWith(tool string) []string {
	var out []string
	for _, p := range mcp.ProfileNames() {
		if names, err := mcp.SelectTools(p); err == nil && slices.Contains(names, tool) {
			out = append(out, p)
		}
	}
	return out
}
