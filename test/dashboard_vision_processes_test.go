package test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/corral-farm/corral/vision/service"
)

// The nodes dashboard's process panels (memory, CPU, goroutines) keep the corral processes by
// joining on a metric only they export: vision workers are corral processes too, and their
// /metrics (process and Go collectors and the worker's own, as corral vision serves them) hold
// none of corral_node_heartbeats_total and corral_mcp_tool_calls_total, which left them out.
func TestNodesDashboardProcessPanelsKeepVisionWorkers(t *testing.T) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	service.NewMetrics(reg)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	exported := map[string]bool{}
	for _, f := range families {
		exported[f.GetName()] = true
	}
	join := regexp.MustCompile(`and on \(job, instance\) \((.*)\)\)$`)
	metric := regexp.MustCompile(`corral_[a-z_]+`)
	seen := 0
	for _, d := range loadDashboards(t) {
		if d.file != "nodes.json" {
			continue
		}
		for _, p := range d.dataPanels() {
			for _, tg := range p.Targets {
				m := join.FindStringSubmatch(tg.Expr)
				if m == nil {
					continue
				}
				seen++
				kept := inSet(metric.FindAllString(m[1], -1), exported)
				if len(kept) == 0 {
					t.Errorf("%s: %q keeps only processes exporting %v, none of which a vision worker exports", p.Title, tg.Expr, metric.FindAllString(m[1], -1))
				}
			}
		}
	}
	if seen < 3 {
		t.Errorf("found %d process panels joined on (job, instance) in nodes.json, want memory, CPU and goroutines", seen)
	}
}

// inSet lists the names of names that are in set.
func inSet(names []string, set map[string]bool) []string {
	var out []string
	for _, n := range names {
		if set[strings.TrimSpace(n)] {
			out = append(out, n)
		}
	}
	return out
}
