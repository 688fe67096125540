package chart_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/corral-farm/corral/mcp"
)

// TestChartGatewayToolsAreCorrals: helm refuses a gateway.tools that corral gateway --tools
// refuses (every gateway would exit at start), and renders every one it takes. QA rendered
// --tools=bogus and --tools=readonly (a profile of a principal's tools only): corral gateway
// --tools readonly --check-config exits 2, unknown tool "readonly".
func TestChartGatewayToolsAreCorrals(t *testing.T) {
	for _, c := range []struct {
		tools string
		want  string // in helm's refusal; "": it renders
	}{
		{"bogus", `gateway.tools "bogus": unknown tool "bogus" for corral gateway --tools; give a profile (all, httprunner, phone-agent, physiclaw)`},
		{"readonly", `readonly is a profile of a principal's tools (auth.policy.principals[].tools), not of --tools`},
		{"httprunner,tap_xy", `unknown tool "httprunner" for corral gateway --tools; give a profile (all, httprunner, phone-agent, physiclaw) or tool names from tools/list, NAME,NAME,...; a profile stands alone: gateway.tools=httprunner`},
		{"all,tap_xy", `unknown tool "all"`},
		{"tap_xy,tap_xyz", `unknown tool "tap_xyz"`},
		{",", `gateway.tools "," names no tool`},
		{"all", ""},
		{" all ", ""},
		{"phone-agent", ""},
		{"physiclaw", ""},
		{"tap_xy", ""},
		{"tap_xy, swipe,,screenshot", ""},
	} {
		value, err := json.Marshal(c.tools)
		if err != nil {
			t.Fatal(err)
		}
		out, err := helm(t, "template", release, chartDir(t), "--set-json", "gateway.tools="+string(value))
		switch {
		case c.want == "" && err != nil:
			t.Errorf("gateway.tools=%q: %v; want it rendered", c.tools, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("gateway.tools=%q: %v\nwant an error with %s", c.tools, err, c.want)
		}
		// helm and the gateway agree.
		if _, refused := mcp.SelectTools(c.tools); (refused != nil) != (c.want != "") {
			t.Errorf("gateway.tools=%q: corral gateway --tools says %v; the case wants refused=%t", c.tools, refused, c.want != "")
		}
		if err == nil {
			if _, _, gw := gateway(t, parse(t, out)); strings.TrimSpace(flags(gw)["tools"]) != strings.TrimSpace(c.tools) {
				t.Errorf("gateway.tools=%q renders --tools=%q", c.tools, flags(gw)["tools"])
			}
		}
	}
}
