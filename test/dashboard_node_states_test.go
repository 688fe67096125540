package test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/corral-farm/corral/broker"
)

// The dashboards tell a node's three states apart as CorralNodeLost does: up, stopped (it
// said so: SIGTERM, a rolling restart, decommissioned; down but not lost) and lost (a
// gateway's verdict, corral_node_lost). The panels' own expressions, taken from the JSON, are
// evaluated by promtool on what two gateways export after n2 stopped cleanly and n3 was lost
// (at one gateway) at minute 3, while n1 runs on; their devices' nodes export nothing since.
func TestDashboardNodeStates(t *testing.T) {
	promtool := tool(t, "promtool")
	exprs := map[string]string{}
	for _, d := range loadDashboards(t) {
		for _, p := range d.dataPanels() {
			for _, tg := range p.Targets {
				exprs[d.file+": "+p.Title] = tg.Expr
			}
		}
	}
	panel := func(name string, vars map[string]string) string {
		t.Helper()
		e, ok := exprs[name]
		if !ok {
			t.Fatalf("no panel %s", name)
		}
		return substitute(t, name, e, vars)
	}
	all := map[string]string{"node": ".*", "__range": "1h"}
	device := func(serial string) map[string]string { return map[string]string{"serial": serial, "__range": "1h"} }

	type sample struct {
		Labels string  `yaml:"labels"`
		Value  float64 `yaml:"value"`
	}
	type exprTest struct {
		Expr     string   `yaml:"expr"`
		EvalTime string   `yaml:"eval_time"`
		Samples  []sample `yaml:"exp_samples"`
	}
	var cases []exprTest
	at := func(when, name string, vars map[string]string, want ...sample) {
		cases = append(cases, exprTest{Expr: panel(name, vars), EvalTime: when, Samples: want})
	}
	nodes := func(up, stopped, lost float64) []sample {
		return []sample{{`{node="n1"}`, up}, {`{node="n2"}`, stopped}, {`{node="n3"}`, lost}}
	}
	at("2m", "nodes.json: Nodes lost now", all, sample{"{}", 0})
	at("2m", "nodes.json: Nodes stopped", all, sample{"{}", 0})
	at("2m", "nodes.json: Node liveness", all, nodes(1, 1, 1)...)
	at("8m", "nodes.json: Nodes lost now", all, sample{"{}", 1})
	at("8m", "nodes.json: Nodes stopped", all, sample{"{}", 1})
	at("8m", "nodes.json: Node liveness", all, nodes(1, 0, -1)...)
	at("8m", "device.json: Its node", device("p1"), sample{`{node="n1"}`, 1})
	at("8m", "device.json: Its node", device("p2"), sample{`{node="n2"}`, 0})
	at("8m", "device.json: Its node", device("p3"), sample{`{node="n3"}`, -1})

	type series struct {
		Series string `yaml:"series"`
		Values string `yaml:"values"`
	}
	gw := func(metric, gw, node, values string) series {
		return series{fmt.Sprintf(`corral_node_%s{job="corral-gateway", instance="%s:8420", node="%s"}`, metric, gw, node), values}
	}
	dev := func(node, serial, values string) series {
		return series{fmt.Sprintf(`corral_device_state{job="corral-node", node="%s", platform="android", serial="%s", state="online"}`, node, serial), values}
	}
	input := []series{
		gw("up", "gw1", "n1", "1x9"), gw("lost", "gw1", "n1", "0x9"),
		gw("up", "gw2", "n1", "1x9"), gw("lost", "gw2", "n1", "0x9"),
		// n2 said it stopped: down at both gateways, lost at neither.
		gw("up", "gw1", "n2", "1 1 1 0x6"), gw("lost", "gw1", "n2", "0x9"),
		gw("up", "gw2", "n2", "1 1 1 0x6"), gw("lost", "gw2", "n2", "0x9"),
		// n3 fell silent: gw1 declared it lost; gw2 (cut off from NATS itself) has no verdict.
		gw("up", "gw1", "n3", "1 1 1 0x6"), gw("lost", "gw1", "n3", "0 0 0 1x6"),
		gw("up", "gw2", "n3", "1x9"), gw("lost", "gw2", "n3", "0x9"),
		dev("n1", "p1", "1x9"), dev("n2", "p2", "1 1 1 stale"), dev("n3", "p3", "1 1 1 stale"),
	}
	file := map[string]any{
		"rule_files":          []string{},
		"evaluation_interval": "1m",
		"tests":               []any{map[string]any{"interval": "1m", "input_series": input, "promql_expr_test": cases}},
	}
	b, err := yaml.Marshal(file)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "dashboard_node_states_test.yaml")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.CommandContext(t.Context(), promtool, "test", "rules", path).CombinedOutput(); err != nil {
		t.Fatalf("the node panels do not tell up, stopped and lost apart: promtool test rules: %v\n%s\n%s", err, out,
			strings.TrimSpace(string(b)))
	}
}

// TestNodeLostTimeInDashboards: where a dashboard panel says how long a node is silent before it
// is declared lost, it says the farm's time (broker.LostAfter), and "Nodes lost now" says it.
func TestNodeLostTimeInDashboards(t *testing.T) {
	lost := strconv.FormatFloat(broker.LostAfter.Seconds(), 'f', -1, 64)
	said := regexp.MustCompile(`(?:silent for|lost after) ([0-9.]+) ?s\b`)
	files, err := filepath.Glob(filepath.Join(dashboardDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var lostNow string
	for _, f := range files {
		var d struct {
			Panels []describedPanel `json:"panels"`
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, p := range flatten(d.Panels) {
			for _, m := range said.FindAllStringSubmatch(p.Description, -1) {
				if m[1] != lost {
					t.Errorf("%s: panel %q says %q; a node is declared lost after %s s", filepath.Base(f), p.Title, m[0], lost)
				}
			}
			if filepath.Base(f) == "nodes.json" && p.Title == "Nodes lost now" {
				lostNow = p.Description
			}
		}
	}
	if !strings.Contains(lostNow, "silent for "+lost+" s") {
		t.Errorf("nodes.json's Nodes lost now says %q, not when a node is lost (silent for %s s)", lostNow, lost)
	}
}

type describedPanel struct {
	Title       string           `json:"title"`
	Description string           `json:"description"`
	Panels      []describedPanel `json:"panels"`
}

func flatten(ps []describedPanel) []describedPanel {
	var out []describedPanel
	for _, p := range ps {
		out = append(out, p)
		out = append(out, flatten(p.Panels)...)
	}
	return out
}
