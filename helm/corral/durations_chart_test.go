package chart_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// positiveDurations are the values that become a corral flag refusing a duration of 0 or less
// at start (the node's --lease-ttl, --lease-max and --grace, the vision worker's --timeout): a
// zero there crash-loops the pods, so the schema refuses it.
var positiveDurations = []string{"node.leaseTTL", "node.leaseMax", "node.grace", "vision.timeout"}

// otherDurations are durations no corral flag takes (the ServiceMonitors' Prometheus settings).
var otherDurations = []string{"monitoring.serviceMonitor.interval", "monitoring.serviceMonitor.scrapeTimeout"}

// durationsInSchema returns the schema's properties whose pattern is a Go duration's, by
// dotted path, with their pattern.
func durationsInSchema(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(chartDir(t), "values.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	if err := json.Unmarshal(b, &schema); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	var walk func(node map[string]any, path []string)
	walk = func(node map[string]any, path []string) {
		if p, ok := node["pattern"].(string); ok && strings.Contains(p, "ms|s|m|h") {
			out[strings.Join(path, ".")] = p
		}
		props, _ := node["properties"].(map[string]any)
		for k, v := range props {
			if child, ok := v.(map[string]any); ok {
				walk(child, append(slices.Clone(path), k))
			}
		}
		for _, k := range []string{"items", "additionalProperties"} {
			if child, ok := node[k].(map[string]any); ok {
				walk(child, append(slices.Clone(path), k))
			}
		}
	}
	walk(schema, nil)
	return out
}

// TestChartRefusesZeroDurations: helm refuses a zero (in any spelling) for each duration
// corral requires positive, naming the value, and takes positive ones in Go's forms; every
// duration of the schema is one of those or one no corral flag takes.
func TestChartRefusesZeroDurations(t *testing.T) {
	found := durationsInSchema(t)
	for path := range found {
		if !slices.Contains(positiveDurations, path) && !slices.Contains(otherDurations, path) {
			t.Errorf("values.schema.json: %s is a duration this test does not know: does corral require it positive? "+
				"add it to positiveDurations (with the positive pattern) or otherDurations", path)
		}
	}
	for _, path := range positiveDurations {
		if found[path] == "" {
			t.Errorf("values.schema.json: %s has no duration pattern", path)
		}
	}

	for _, path := range positiveDurations {
		for _, zero := range []string{"0s", "0", "0m0s", "0.0s", "0h0.000m", "00ms"} {
			_, err := helm(t, append([]string{"template", release, chartDir(t)}, valuesCase{sets: []string{path + "=" + zero}}.args()...)...)
			if want := "/" + strings.ReplaceAll(path, ".", "/"); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("--set %s=%s: %v; want the schema to refuse %s", path, zero, err, want)
			}
		}
	}

	// Positive durations in Go's forms render, each the flag's value as given.
	for _, d := range []string{"1ns", "0.5s", "1m0s", "0s1ms", "90m", "1h0.5m", "10.0s"} {
		if v, err := time.ParseDuration(d); err != nil || v <= 0 {
			t.Fatalf("test data %q: %v, %v: want a positive Go duration", d, v, err)
		}
		var sets []string
		for _, path := range positiveDurations {
			sets = append(sets, path+"="+d)
		}
		sets = append(sets, "vision.enabled=true")
		m := render(t, valuesCase{name: "duration " + d, sets: sets})
		node := container(t, dig(m.must(t, "DaemonSet", fullname+"-node"), "spec", "template", "spec").(object), "node")
		vision := container(t, dig(m.must(t, "Deployment", fullname+"-vision"), "spec", "template", "spec").(object), "vision")
		nf, vf := flags(node), flags(vision)
		if nf["lease-ttl"] != d || nf["lease-max"] != d || nf["grace"] != d || vf["timeout"] != d {
			t.Errorf("durations %s: node --lease-ttl=%s --lease-max=%s --grace=%s, vision --timeout=%s", d,
				nf["lease-ttl"], nf["lease-max"], nf["grace"], vf["timeout"])
		}
	}
}
