package chart_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/corral-farm/corral/mcp"
)

// recorder is a real registry that also keeps what was registered, so that the names of
// vectors without children yet (no call made) can be read from their descriptions.
type recorder struct {
	*prometheus.Registry
	collectors []prometheus.Collector
}

func (r *recorder) Register(c prometheus.Collector) error {
	r.collectors = append(r.collectors, c)
	return r.Registry.Register(c)
}

func (r *recorder) MustRegister(cs ...prometheus.Collector) {
	for _, c := range cs {
		if err := r.Register(c); err != nil {
			panic(err)
		}
	}
}

var fqNameRE = regexp.MustCompile(`fqName: "([^"]+)"`)

// frontDoorMetrics returns the names of the metrics mcp.NewMetrics registers and the reasons
// of corral_gateway_denied_total (fixed, so they are there before any refusal).
func frontDoorMetrics(t *testing.T) (names, reasons []string) {
	t.Helper()
	reg := &recorder{Registry: prometheus.NewRegistry()}
	mcp.NewMetrics(reg)
	for _, c := range reg.collectors {
		descs := make(chan *prometheus.Desc, 16)
		go func() { c.Describe(descs); close(descs) }()
		for d := range descs {
			m := fqNameRE.FindStringSubmatch(d.String())
			if m == nil {
				t.Fatalf("no name in %s", d)
			}
			names = append(names, m[1])
		}
	}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "corral_gateway_denied_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "reason" {
					reasons = append(reasons, l.GetValue())
				}
			}
		}
	}
	if len(names) < 4 || len(reasons) == 0 {
		t.Fatalf("mcp.NewMetrics registered %v with reasons %v: too few to check", names, reasons)
	}
	return names, reasons
}

// TestFrontDoorDashboardShowsEveryGatewayMetric: every metric the front door exports is
// queried by the front-door dashboard and named in docs/observability.md and
// docs/architecture.md, and every reason of corral_gateway_denied_total is named by the panel
// that plots them by reason and by the runbook's Denied calls section. A metric or reason
// added to the gateway and to no dashboard fails here (as corral_gateway_idle_conns_reclaimed_total
// and bad_body once did).
func TestFrontDoorDashboardShowsEveryGatewayMetric(t *testing.T) {
	names, reasons := frontDoorMetrics(t)

	b, err := os.ReadFile(filepath.Join(chartDir(t), "dashboards", "front-door.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title       string `json:"title"`
			Description string `json:"description"`
			Targets     []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("front-door.json: %v", err)
	}
	var exprs []string
	byReason := -1
	for i, p := range d.Panels {
		for _, tg := range p.Targets {
			exprs = append(exprs, tg.Expr)
			if strings.Contains(tg.Expr, "corral_gateway_denied_total") && strings.Contains(tg.Expr, "by (reason)") {
				byReason = i
			}
		}
	}
	for _, n := range names {
		if !slices.ContainsFunc(exprs, func(e string) bool { return regexp.MustCompile(`\b` + n + `(_bucket|_count|_sum)?\b`).MatchString(e) }) {
			t.Errorf("front-door.json queries no %s: add a panel (deploy/grafana/front-door.json, then make chart-assets)", n)
		}
	}

	// The architecture page's list of metrics too: it once lacked idle_conns_reclaimed.
	for _, doc := range []string{"observability.md", "architecture.md"} {
		b, err := os.ReadFile(filepath.Join(root(t), "docs", doc))
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			if !strings.Contains(string(b), "`"+n) {
				t.Errorf("docs/%s does not name %s", doc, n)
			}
		}
	}

	if byReason < 0 {
		t.Fatal("front-door.json has no panel of corral_gateway_denied_total by (reason)")
	}
	p := d.Panels[byReason]
	runbook, err := os.ReadFile(filepath.Join(root(t), "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, denied, _ := strings.Cut(string(runbook), "\n## Denied calls\n")
	denied, _, _ = strings.Cut(denied, "\n## ")
	for _, r := range reasons {
		word := regexp.MustCompile(`\b` + r + `\b`)
		if !word.MatchString(p.Description) {
			t.Errorf("front-door.json panel %q: its description %q does not name the reason %s", p.Title, p.Description, r)
		}
		if !strings.Contains(denied, "`"+r+"`") {
			t.Errorf("docs/operations.md's Denied calls section does not name the reason `%s`", r)
		}
	}
}
