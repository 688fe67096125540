package test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"gopkg.in/yaml.v3"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/internal/logtest"
)

// The operator's observability kit: Grafana dashboards and Prometheus alert rules.
const (
	dashboardDir = "../deploy/grafana"
	rulesDir     = "../deploy/prometheus"
	runbookURL   = "https://github.com/corral-farm/corral/blob/main/docs/operations.md#"
)

// The alert rules pass promtool's checks and unit tests, and every alert has its annotations,
// a runbook link, and tests that show it firing and not firing.
func TestAlertRules(t *testing.T) {
	promtool := tool(t, "promtool")
	for _, args := range [][]string{{"check", "rules", "rules.yaml"}, {"test", "rules", "rules_test.yaml"}} {
		cmd := exec.CommandContext(t.Context(), promtool, args...)
		cmd.Dir = rulesDir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("promtool %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}

	alerts := loadAlerts(t)
	var tests struct {
		Tests []struct {
			Name  string `yaml:"name"`
			Cases []struct {
				Alert  string `yaml:"alertname"`
				Expect []any  `yaml:"exp_alerts"`
			} `yaml:"alert_rule_test"`
		} `yaml:"tests"`
	}
	readYAML(t, filepath.Join(rulesDir, "rules_test.yaml"), &tests)
	fires, quiet := map[string]bool{}, map[string]bool{}
	for _, tc := range tests.Tests {
		for _, c := range tc.Cases {
			if _, ok := alerts[c.Alert]; !ok {
				t.Errorf("rules_test.yaml %q tests %s, which rules.yaml does not define", tc.Name, c.Alert)
			}
			if len(c.Expect) > 0 {
				fires[c.Alert] = true
			} else {
				quiet[c.Alert] = true
			}
		}
	}
	for name, a := range alerts {
		if !fires[name] || !quiet[name] {
			t.Errorf("%s: rules_test.yaml must show it firing (%v) and not firing (%v)", name, fires[name], quiet[name])
		}
		for _, k := range []string{"summary", "description", "runbook_url"} {
			if strings.TrimSpace(a.Annotations[k]) == "" {
				t.Errorf("%s has no %s annotation", name, k)
			}
		}
		if anchor, ok := strings.CutPrefix(a.Annotations["runbook_url"], runbookURL); !ok || !regexp.MustCompile(`^[a-z0-9-]+$`).MatchString(anchor) {
			t.Errorf("%s: runbook_url %q is not %s<anchor>", name, a.Annotations["runbook_url"], runbookURL)
		}
		if s := a.Labels["severity"]; s != "critical" && s != "warning" {
			t.Errorf("%s: severity %q, want critical or warning", name, s)
		}
	}
}

type alertRule struct {
	Alert       string            `yaml:"alert"`
	Expr        string            `yaml:"expr"`
	Labels      map[string]string `yaml:"labels"`
	Annotations map[string]string `yaml:"annotations"`
}

func loadAlerts(t *testing.T) map[string]alertRule {
	t.Helper()
	var file struct {
		Groups []struct {
			Rules []alertRule `yaml:"rules"`
		} `yaml:"groups"`
	}
	readYAML(t, filepath.Join(rulesDir, "rules.yaml"), &file)
	alerts := map[string]alertRule{}
	for _, g := range file.Groups {
		for _, r := range g.Rules {
			if r.Alert != "" {
				alerts[r.Alert] = r
			}
		}
	}
	if len(alerts) == 0 {
		t.Fatal("rules.yaml defines no alert")
	}
	return alerts
}

func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// dashboard is what the tests read of a Grafana dashboard.
type dashboard struct {
	file          string
	UID           string   `json:"uid"`
	Title         string   `json:"title"`
	Tags          []string `json:"tags"`
	SchemaVersion int      `json:"schemaVersion"`
	Templating    struct {
		List []dashVar `json:"list"`
	} `json:"templating"`
	Panels []panel `json:"panels"`
}

type dashVar struct {
	Name       string `json:"name"`
	Type       string `json:"type"`
	Query      any    `json:"query"`
	Definition string `json:"definition"`
	IncludeAll bool   `json:"includeAll"`
	AllValue   string `json:"allValue"`
}

type panel struct {
	ID         int      `json:"id"`
	Title      string   `json:"title"`
	Type       string   `json:"type"`
	Datasource *dsRef   `json:"datasource"`
	Targets    []target `json:"targets"`
	Panels     []panel  `json:"panels"` // a collapsed row's
}

type dsRef struct {
	Type string `json:"type"`
	UID  string `json:"uid"`
}

type target struct {
	RefID      string `json:"refId"`
	Expr       string `json:"expr"`
	Datasource *dsRef `json:"datasource"`
}

// wantDashboards are the dashboards deploy/grafana must have (the Helm chart ships them all).
var wantDashboards = []string{"device.json", "fleet.json", "front-door.json", "nodes.json", "scheduler.json"}

func loadDashboards(t *testing.T) []dashboard {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dashboardDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	for _, w := range wantDashboards {
		if !slices.Contains(names, w) {
			t.Errorf("deploy/grafana has no %s", w)
		}
	}
	var out []dashboard
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		d := dashboard{file: filepath.Base(f)}
		if err := json.Unmarshal(b, &d); err != nil {
			t.Errorf("%s is not valid JSON: %v", d.file, err)
			continue
		}
		out = append(out, d)
	}
	return out
}

// dataPanels lists a dashboard's panels, rows' panels included; rows themselves are layout.
func (d dashboard) dataPanels() []panel {
	var out []panel
	var walk func([]panel)
	walk = func(ps []panel) {
		for _, p := range ps {
			if p.Type == "row" {
				walk(p.Panels)
				continue
			}
			out = append(out, p)
		}
	}
	walk(d.Panels)
	return out
}

// The dashboards import into any Grafana: valid JSON, our uid, title and tag, a Prometheus data
// source variable that every panel and query uses, and unique panel ids.
func TestDashboardsAreWellFormed(t *testing.T) {
	uids := map[string]string{}
	for _, d := range loadDashboards(t) {
		if d.UID == "" || d.Title == "" || !slices.Contains(d.Tags, "corral") {
			t.Errorf("%s: uid %q, title %q, tags %v: all three are needed, with the tag corral", d.file, d.UID, d.Title, d.Tags)
		}
		if other, dup := uids[d.UID]; dup {
			t.Errorf("%s and %s share the uid %q", d.file, other, d.UID)
		}
		uids[d.UID] = d.file
		if d.SchemaVersion < 36 || d.SchemaVersion > 41 {
			t.Errorf("%s: schemaVersion %d, want about 39", d.file, d.SchemaVersion)
		}
		if !slices.ContainsFunc(d.Templating.List, func(v dashVar) bool {
			return v.Name == "datasource" && v.Type == "datasource" && v.Query == "prometheus"
		}) {
			t.Errorf("%s has no datasource variable of type prometheus", d.file)
		}
		ids := map[int]string{}
		var walk func([]panel)
		walk = func(ps []panel) {
			for _, p := range ps {
				if other, dup := ids[p.ID]; dup || p.ID <= 0 {
					t.Errorf("%s: panel %q has id %d (also %q)", d.file, p.Title, p.ID, other)
				}
				ids[p.ID] = p.Title
				walk(p.Panels)
			}
		}
		walk(d.Panels)
		panels := d.dataPanels()
		if len(panels) == 0 {
			t.Errorf("%s has no panels", d.file)
		}
		for _, p := range panels {
			where := fmt.Sprintf("%s: panel %q", d.file, p.Title)
			if p.Title == "" {
				t.Errorf("%s: panel %d has no title", d.file, p.ID)
			}
			if !isOurDatasource(p.Datasource) {
				t.Errorf("%s: datasource %+v, want uid ${datasource}", where, p.Datasource)
			}
			if len(p.Targets) == 0 {
				t.Errorf("%s has no targets", where)
			}
			for _, tg := range p.Targets {
				if !isOurDatasource(tg.Datasource) {
					t.Errorf("%s, query %s: datasource %+v, want uid ${datasource}", where, tg.RefID, tg.Datasource)
				}
				if strings.TrimSpace(tg.Expr) == "" {
					t.Errorf("%s, query %s has no expression", where, tg.RefID)
				}
			}
		}
	}
}

func isOurDatasource(ds *dsRef) bool {
	return ds != nil && ds.Type == "prometheus" && ds.UID == "${datasource}"
}

// Every query of every dashboard panel returns data from a real Prometheus scraping a real
// farm (corral up) that agents have just used; so do the dashboards' variables, and the alert
// rules evaluate there without errors on metrics that exist.
func TestDashboardQueriesReturnData(t *testing.T) {
	promBin := tool(t, "prometheus")
	dashboards := loadDashboards(t)
	corral(t) // built before the clock starts
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()

	farm := startCorralUp(ctx, t, "--sim", "3")
	prom := startPrometheus(ctx, t, promBin, farm.metricsAddr)
	prom.waitScrapedAfter(ctx, t, time.Now()) // so that rates see the traffic begin
	start := time.Now()
	driveTraffic(ctx, t, farm)
	t.Logf("traffic driven in %s", time.Since(start).Round(time.Millisecond))
	// Every query is evaluated at this scrape: a later one that times out on a loaded machine
	// marks the farm's series stale, which is no reason to fail a dashboard.
	at := prom.waitScrapedAfter(ctx, t, time.Now())
	names := prom.metricNames(ctx, t)
	checkNames := func(where, expr string) {
		for _, n := range regexp.MustCompile(`\bcorral_[a-z_]+`).FindAllString(expr, -1) {
			if !names[n] && !hubOnly[n] {
				t.Errorf("%s uses %s, which the farm does not export", where, n)
			}
		}
	}

	for _, d := range dashboards {
		vars := map[string]string{"__rate_interval": "2m", "__interval": "15s", "__range": "1h", "datasource": ""}
		for _, v := range d.Templating.List {
			if v.Type != "query" {
				continue
			}
			def := v.Definition
			if def == "" {
				def = queryString(v.Query)
			}
			values := prom.labelValues(ctx, t, substitute(t, d.file+" variable "+v.Name, def, vars))
			if len(values) == 0 {
				t.Errorf("%s: variable %s (%s) has no values", d.file, v.Name, def)
				continue
			}
			switch {
			case v.IncludeAll:
				vars[v.Name] = v.AllValue
			case v.Name == "serial":
				if !slices.Contains(values, busySerial) {
					t.Errorf("%s: variable serial offers %v, not %s", d.file, values, busySerial)
				}
				vars[v.Name] = busySerial
			default:
				vars[v.Name] = values[0]
			}
		}
		for _, p := range d.dataPanels() {
			for _, tg := range p.Targets {
				where := fmt.Sprintf("%s: panel %q query %s", d.file, p.Title, tg.RefID)
				expr := substitute(t, where, tg.Expr, vars)
				checkNames(where, expr)
				if err := prom.hasData(ctx, expr, at); err != nil {
					t.Errorf("%s: %v\n  query: %s", where, err, expr)
				}
			}
		}
	}

	for name, a := range loadAlerts(t) {
		checkNames("alert "+name, a.Expr)
	}
	prom.rulesHealthy(ctx, t)
}

// hubOnly are the metrics only a hub's gateways export (--sites), which this farm is not: the
// broker's site tests gather them (TestSiteNodesShowEachSitesNodes, the site watch's tests).
var hubOnly = map[string]bool{"corral_site_up": true, "corral_site_node": true, "corral_site_reconnects_total": true}

// busySerial is the device the traffic exercises most: the device dashboard is checked on it.
const busySerial = "sim-local-02"

// upFarm is a running `corral up`.
type upFarm struct {
	mcpURL      string
	metricsAddr string
}

// startCorralUp runs `corral up` with flags (its devices: --sim N, --sim-arm N, …) on free
// loopback ports.
func startCorralUp(ctx context.Context, t *testing.T, flags ...string) upFarm {
	t.Helper()
	args := append([]string{"up", "--data", t.TempDir(), "--nats-port", "-1", "--http", "127.0.0.1:0", "--adb", "off",
		"--log-level", "warn"}, flags...)
	cmd := exec.CommandContext(ctx, corral(t), args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr logtest.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGINT)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("corral up stderr:\n%s", stderr.String())
		}
	})
	urlRE := regexp.MustCompile(`MCP endpoint\s+(http://(\S+)/mcp)`)
	lines := bufio.NewScanner(stdout)
	var f upFarm
	for lines.Scan() {
		if m := urlRE.FindStringSubmatch(lines.Text()); m != nil {
			f.mcpURL, f.metricsAddr = m[1], m[2]
			break
		}
	}
	if f.mcpURL == "" {
		t.Fatalf("corral up printed no MCP endpoint; stderr:\n%s", stderr.String())
	}
	go func() {
		for lines.Scan() { // keep reading so the process never blocks on stdout
		}
	}()
	return f
}

// driveTraffic uses the farm as agents do, so that every panel has something to show: lists,
// leases (one waited for), taps, a screenshot, refused and failing calls, a sleep aborted with
// a task queued behind it, a timeout, and a request the gateway denies.
func driveTraffic(ctx context.Context, t *testing.T, f upFarm) {
	t.Helper()
	alice, bob := mcpClient(ctx, t, f.mcpURL, "obs-alice"), mcpClient(ctx, t, f.mcpURL, "obs-bob")
	const first, third = "sim-local-01", "sim-local-03"

	contains(t, farmtest.Text(farmtest.MustCall(t, alice, "list_available_devices", nil)), first, busySerial, third)
	var acquired struct {
		Lease struct{ Handle string } `json:"lease"`
	}
	farmtest.Structured(t, farmtest.MustCall(t, alice, "acquire_device", args("serial", first)), &acquired)
	lease := acquired.Lease.Handle
	farmtest.MustCall(t, alice, "tap_xy", args("serial", first, "lease", lease, "x", 0.5, "y", 0.5))
	farmtest.MustCall(t, alice, "get_screen_size", args("serial", first, "lease", lease))
	if img, _ := farmtest.Image(farmtest.MustCall(t, alice, "screenshot", args("serial", first, "lease", lease))); img == "" {
		t.Fatal("screenshot returned no image")
	}
	farmtest.MustCall(t, alice, "list_leases", nil)

	// Bob waits for alice's lease, and gets it when she releases it.
	bobLease := callAsync(ctx, bob, "acquire_device", args("serial", first, "wait_seconds", 30))
	waitMetric(ctx, t, f.metricsAddr, `corral_device_queue_depth{node="local",serial="`+first+`"} 1`)
	farmtest.MustCall(t, alice, "release_device", args("serial", first, "lease", lease))
	res := <-bobLease
	if res.err != nil || res.res.IsError {
		t.Fatalf("bob's queued acquire_device: %v %s", res.err, text(res.res))
	}
	farmtest.Structured(t, res.res, &acquired)
	farmtest.MustCall(t, bob, "release_device", args("serial", first, "lease", acquired.Lease.Handle))

	// Refused and failing calls.
	if r := farmtest.Call(t, alice, "tap_xy", args("serial", first, "x", 2, "y", 0.5)); !r.IsError {
		t.Fatalf("tap_xy at x=2 succeeded: %s", farmtest.Text(r))
	}
	if r := farmtest.Call(t, alice, "app_launch", args("serial", first, "packageName", "com.example.not.installed")); !r.IsError {
		t.Fatalf("launching an app that is not installed succeeded: %s", farmtest.Text(r))
	}

	// Alice sleeps on the busy device; bob's tap waits behind her; the sleep is aborted and bob's
	// tap runs (a hand-over).
	sleep := callAsync(ctx, alice, "sleep", args("serial", busySerial, "seconds", 60))
	waitMetric(ctx, t, f.metricsAddr, `corral_device_state{node="local",platform="android",serial="`+busySerial+`",state="busy"} 1`)
	tap := callAsync(ctx, bob, "tap_xy", args("serial", busySerial, "x", 0.2, "y", 0.2, "wait_seconds", 30))
	waitMetric(ctx, t, f.metricsAddr, `corral_device_queue_depth{node="local",serial="`+busySerial+`"} 1`)
	contains(t, farmtest.Text(farmtest.MustCall(t, alice, "abort_task", args("serial", busySerial))), "Aborted 1 task")
	if r := <-sleep; r.err != nil || !r.res.IsError {
		t.Fatalf("the aborted sleep: %v %s", r.err, text(r.res))
	}
	if r := <-tap; r.err != nil || r.res.IsError {
		t.Fatalf("bob's queued tap: %v %s", r.err, text(r.res))
	}

	// A timeout, on the busy device too.
	if r := farmtest.Call(t, alice, "sleep", args("serial", busySerial, "seconds", 5, "timeout_ms", 200)); !r.IsError {
		t.Fatalf("a sleep of 5 s with a 200 ms deadline succeeded: %s", farmtest.Text(r))
	}
	farmtest.MustCall(t, alice, "tap_xy", args("serial", third, "x", 0.7, "y", 0.7))

	// A cross-site request: the gateway refuses it before anything reaches a device.
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, f.mcpURL, strings.NewReader(`{}`))
	req.Header.Set("Origin", "http://evil.example")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a request from Origin http://evil.example: %s, want 403", resp.Status)
	}
}

func mcpClient(ctx context.Context, t *testing.T, endpoint, name string) *client.Client {
	t.Helper()
	c, err := client.NewStreamableHttpClient(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcpgo.InitializeRequest{}
	init.Params.ClientInfo = mcpgo.Implementation{Name: name, Version: "test"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	return c
}

type callResult struct {
	res *mcpgo.CallToolResult
	err error
}

// callAsync calls a tool in the background (farmtest.Call may not fail a test off its goroutine).
func callAsync(ctx context.Context, c *client.Client, tool string, arguments map[string]any) <-chan callResult {
	ch := make(chan callResult, 1)
	go func() {
		req := mcpgo.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = tool, arguments
		res, err := c.CallTool(ctx, req)
		ch <- callResult{res, err}
	}()
	return ch
}

func text(res *mcpgo.CallToolResult) string {
	if res == nil {
		return "(no result)"
	}
	return farmtest.Text(res)
}

// waitMetric polls the gateway's /metrics until it has the line want.
func waitMetric(ctx context.Context, t *testing.T, addr, want string) {
	t.Helper()
	for ctx.Err() == nil {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if slices.Contains(strings.Split(string(b), "\n"), want) {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("/metrics never had %s", want)
}

// promServer is a real Prometheus scraping the farm every second.
type promServer struct {
	url string
}

func startPrometheus(ctx context.Context, t *testing.T, bin, target string) *promServer {
	t.Helper()
	dir := t.TempDir()
	rules, err := filepath.Abs(filepath.Join(rulesDir, "rules.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf(`global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - %s
scrape_configs:
  - job_name: corral
    static_configs:
      - targets: ["%s"]
`, rules, target)
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := freeLoopbackAddr(t)
	cmd := exec.CommandContext(ctx, bin, "--config.file="+filepath.Join(dir, "prometheus.yml"),
		"--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+addr, "--log.level=warn")
	var out logtest.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("prometheus output:\n%s", out.String())
		}
	})
	p := &promServer{url: "http://" + addr}
	for {
		resp, err := http.Get(p.url + "/-/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p
			}
		}
		if ctx.Err() != nil {
			t.Fatalf("prometheus never became ready on %s:\n%s", addr, out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// freeLoopbackAddr returns a loopback address whose port was free a moment ago.
func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// api calls Prometheus' HTTP API and decodes its data.
func (p *promServer) api(ctx context.Context, path string, params url.Values, data any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.url+path+"?"+params.Encode(), nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var body struct {
		Status string          `json:"status"`
		Error  string          `json:"error"`
		Data   json.RawMessage `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return fmt.Errorf("%s: %s: %w", path, resp.Status, err)
	}
	if body.Status != "success" {
		return fmt.Errorf("%s", body.Error)
	}
	return json.Unmarshal(body.Data, data)
}

type vectorResult struct {
	ResultType string `json:"resultType"`
	Result     []struct {
		Metric map[string]string `json:"metric"`
		Value  [2]any            `json:"value"`
	} `json:"result"`
}

func (r vectorResult) values() []float64 {
	var out []float64
	for _, s := range r.Result {
		if str, ok := s.Value[1].(string); ok {
			v, err := strconv.ParseFloat(str, 64)
			if err == nil {
				out = append(out, v)
			}
		}
	}
	return out
}

// hasData runs an instant query at the time given; no series, or only NaN, is no data.
func (p *promServer) hasData(ctx context.Context, expr string, at string) error {
	var r vectorResult
	if err := p.api(ctx, "/api/v1/query", url.Values{"query": {expr}, "time": {at}}, &r); err != nil {
		return fmt.Errorf("query failed: %w", err)
	}
	if r.ResultType != "vector" {
		return fmt.Errorf("result type %s, want vector", r.ResultType)
	}
	vs := r.values()
	if len(vs) == 0 {
		return fmt.Errorf("no data")
	}
	if !slices.ContainsFunc(vs, func(v float64) bool { return !math.IsNaN(v) }) {
		return fmt.Errorf("only NaN (%d series)", len(vs))
	}
	return nil
}

// waitScrapedAfter waits until Prometheus holds a successful scrape of the farm taken after at,
// and returns its time as the API writes times.
func (p *promServer) waitScrapedAfter(ctx context.Context, t *testing.T, at time.Time) string {
	t.Helper()
	for {
		// timestamp() gives a sample's time only when applied to a selector.
		var ts, up vectorResult
		err := p.api(ctx, "/api/v1/query", url.Values{"query": {`timestamp(up{job="corral"})`}}, &ts)
		if err == nil {
			err = p.api(ctx, "/api/v1/query", url.Values{"query": {`up{job="corral"}`}}, &up)
		}
		if stamps, ups := ts.values(), up.values(); err == nil && len(stamps) == 1 && stamps[0] > float64(at.UnixMilli())/1000 && len(ups) == 1 && ups[0] == 1 {
			return strconv.FormatFloat(stamps[0], 'f', 3, 64)
		}
		if ctx.Err() != nil {
			t.Fatalf("prometheus never scraped the farm after %s (last error %v)", at.Format(time.TimeOnly), err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// metricNames lists the metric names Prometheus has.
func (p *promServer) metricNames(ctx context.Context, t *testing.T) map[string]bool {
	t.Helper()
	var names []string
	if err := p.api(ctx, "/api/v1/label/__name__/values", nil, &names); err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, n := range names {
		out[n] = true
	}
	return out
}

var labelValuesRE = regexp.MustCompile(`^label_values\((.+),\s*(\w+)\)$`)

// labelValues answers a Grafana label_values(selector, label) variable query.
func (p *promServer) labelValues(ctx context.Context, t *testing.T, query string) []string {
	t.Helper()
	m := labelValuesRE.FindStringSubmatch(strings.TrimSpace(query))
	if m == nil {
		t.Fatalf("variable query %q is not label_values(selector, label)", query)
	}
	var values []string
	if err := p.api(ctx, "/api/v1/label/"+m[2]+"/values", url.Values{"match[]": {m[1]}}, &values); err != nil {
		t.Fatalf("variable query %s: %v", query, err)
	}
	sort.Strings(values)
	return values
}

// rulesHealthy checks that every alert rule has been evaluated without an error.
func (p *promServer) rulesHealthy(ctx context.Context, t *testing.T) {
	t.Helper()
	want := loadAlerts(t)
	for {
		var r struct {
			Groups []struct {
				Rules []struct {
					Name      string `json:"name"`
					Health    string `json:"health"`
					LastError string `json:"lastError"`
				} `json:"rules"`
			} `json:"groups"`
		}
		if err := p.api(ctx, "/api/v1/rules", nil, &r); err != nil {
			t.Fatal(err)
		}
		seen, pending := map[string]bool{}, false
		for _, g := range r.Groups {
			for _, rule := range g.Rules {
				seen[rule.Name] = true
				switch rule.Health {
				case "ok":
				case "unknown":
					pending = true
				default:
					t.Errorf("alert %s: health %s: %s", rule.Name, rule.Health, rule.LastError)
				}
			}
		}
		for name := range want {
			if !seen[name] {
				t.Errorf("prometheus did not load alert %s", name)
			}
		}
		if !pending || t.Failed() {
			return
		}
		if ctx.Err() != nil {
			t.Fatal("prometheus never evaluated every alert rule")
		}
		time.Sleep(200 * time.Millisecond)
	}
}

var varRE = regexp.MustCompile(`\$\{(\w+)(?::\w+)?\}|\$(\w+)`)

// substitute replaces Grafana's variables in a query; an unknown variable fails the test.
func substitute(t *testing.T, where, expr string, vars map[string]string) string {
	t.Helper()
	return varRE.ReplaceAllStringFunc(expr, func(s string) string {
		m := varRE.FindStringSubmatch(s)
		name := m[1] + m[2]
		v, ok := vars[name]
		if !ok {
			t.Errorf("%s uses the variable $%s, which the dashboard does not define", where, name)
		}
		return v
	})
}

// queryString is the query of a variable, a string or {"query": "..."}.
func queryString(q any) string {
	switch v := q.(type) {
	case string:
		return v
	case map[string]any:
		s, _ := v["query"].(string)
		return s
	}
	return ""
}
