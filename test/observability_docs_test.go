package test

// The dashboards' filters, the alert rules and docs/observability.md say what the farm does: a
// panel the node filter cannot narrow says it is farm-wide, the example scrape jobs are the
// ones the rules need, and the rules give the nodes' real time to be declared lost.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/corral-farm/corral/broker"
)

// filterVars are the dashboard variables a panel either applies or says it cannot.
var filterVars = []string{"node", "platform"}

// unfilteredSaid is how a panel says why a filter does not apply to it: it is farm-wide (its
// title, its row's title or the query's legend says so), or, for platform, its series have no
// platform label (its description says so).
func unfilteredSaid(v string, row, title, desc, legend string) bool {
	farmWide := func(s string) bool { return strings.Contains(strings.ToLower(s), "farm-wide") }
	if farmWide(row) || farmWide(title) || farmWide(legend) {
		return true
	}
	return v != "node" && strings.Contains(desc, "no "+v+" label")
}

// TestDashboardFiltersApplyOrSayFarmWide: on a dashboard with a node (or platform) variable,
// every query filters by it (or by one device, $serial), or its panel says why it cannot (the series has no such label): a
// reader who picks a node never takes farm-wide numbers for the node's.
func TestDashboardFiltersApplyOrSayFarmWide(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(dashboardDir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no dashboards in %s: %v", dashboardDir, err)
	}
	type jsonPanel struct {
		ID          int    `json:"id"`
		Type        string `json:"type"`
		Title       string `json:"title"`
		Description string `json:"description"`
		Targets     []struct {
			Expr         string `json:"expr"`
			LegendFormat string `json:"legendFormat"`
		} `json:"targets"`
		Panels []json.RawMessage `json:"panels"`
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var d struct {
			Templating struct {
				List []struct {
					Name string `json:"name"`
				} `json:"list"`
			} `json:"templating"`
			Panels []json.RawMessage `json:"panels"`
		}
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var vars []string
		for _, v := range d.Templating.List {
			for _, fv := range filterVars {
				if v.Name == fv {
					vars = append(vars, fv)
				}
			}
		}
		var check func(row string, raw []json.RawMessage)
		check = func(row string, raw []json.RawMessage) {
			for _, r := range raw {
				var p jsonPanel
				if err := json.Unmarshal(r, &p); err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				if p.Type == "row" {
					row = p.Title // a flat row: the panels after it are its own
					check(row, p.Panels)
					continue
				}
				for _, tg := range p.Targets {
					for _, v := range vars {
						// One device ($serial, picked among $node's) is narrower than any node.
						narrowed := strings.Contains(tg.Expr, "$"+v) || strings.Contains(tg.Expr, "$serial")
						if !narrowed && !unfilteredSaid(v, row, p.Title, p.Description, tg.LegendFormat) {
							t.Errorf("%s panel %d %q (row %q): %s ignores $%s and does not say it is farm-wide",
								filepath.Base(f), p.ID, p.Title, row, tg.Expr, v)
						}
					}
				}
			}
		}
		check("", d.Panels)
	}
}

// TestObservabilityDocsScrapeEveryJob: docs/observability.md's example scrape_configs has every
// job deploy/compose/prometheus.yml scrapes (the vision workers' included: without them the
// vision alerts never fire), and its table of endpoints a row for each of their processes.
func TestObservabilityDocsScrapeEveryJob(t *testing.T) {
	var compose struct {
		ScrapeConfigs []struct {
			JobName string `yaml:"job_name"`
		} `yaml:"scrape_configs"`
	}
	readYAML(t, "../deploy/compose/prometheus.yml", &compose)
	doc, err := os.ReadFile("../docs/observability.md")
	if err != nil {
		t.Fatal(err)
	}
	example := regexp.MustCompile("(?s)```yaml\nscrape_configs:.*?```").Find(doc)
	if example == nil {
		t.Fatal("docs/observability.md has no scrape_configs example")
	}
	var docJobs struct {
		ScrapeConfigs []struct {
			JobName string `yaml:"job_name"`
		} `yaml:"scrape_configs"`
	}
	file := filepath.Join(t.TempDir(), "example.yml")
	if err := os.WriteFile(file, []byte(strings.Trim(strings.TrimPrefix(string(example), "```yaml"), "`")), 0o600); err != nil {
		t.Fatal(err)
	}
	readYAML(t, file, &docJobs)
	have := map[string]bool{}
	for _, j := range docJobs.ScrapeConfigs {
		have[j.JobName] = true
	}
	if len(compose.ScrapeConfigs) == 0 {
		t.Fatal("deploy/compose/prometheus.yml scrapes nothing")
	}
	for _, j := range compose.ScrapeConfigs {
		if !have[j.JobName] {
			t.Errorf("docs/observability.md's scrape_configs lacks the job %s (deploy/compose/prometheus.yml has it)", j.JobName)
		}
		process := "| `corral " + strings.TrimPrefix(j.JobName, "corral-") + "` |"
		if !strings.Contains(string(doc), process) {
			t.Errorf("docs/observability.md's \"Where the metrics are\" has no row %s", process)
		}
	}
}

// TestNodeLostTimeInRulesAndDocs: the CorralNodeLost alert and docs/observability.md give the
// time after which a silent node is declared lost that the farm uses (broker.LostAfter).
func TestNodeLostTimeInRulesAndDocs(t *testing.T) {
	lost := strconv.FormatFloat(broker.LostAfter.Seconds(), 'f', -1, 64) + " s"
	a, ok := loadAlerts(t)["CorralNodeLost"]
	if !ok {
		t.Fatal("rules.yaml has no CorralNodeLost")
	}
	if !strings.Contains(a.Annotations["description"], "declared lost after "+lost+" of silence") {
		t.Errorf("CorralNodeLost's description %q does not say a node is declared lost after %s", a.Annotations["description"], lost)
	}
	doc, err := os.ReadFile("../docs/observability.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`(?m)^\| CorralNodeLost \|.*$`).Find(doc)
	if !strings.Contains(string(row), "no heartbeat for "+lost+")") {
		t.Errorf("docs/observability.md's CorralNodeLost row %q does not say %s", row, lost)
	}
}
