package mcp

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/logtest"
)

// Tokens of the test policy: viewer reads only; lab may use devices tagged wifi; admin all.
const (
	viewerToken = "viewer-token-5f2b9c0d7e1a"
	labToken    = "lab-token-3c8e1f6a9b2d4"
	adminToken  = "admin-token-7a1d4e9c2b5f"
)

// testPolicy writes a policy using each way to give a token and loads it.
func testPolicy(t *testing.T) *Policy {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "lab-token"), []byte(labToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	policy := `principals:
  - name: viewer
    token_sha256: ` + sha256Hex(viewerToken) + `
    tools: [readonly]
  - name: lab
    token_file: lab-token
    tags: [wifi]
  - name: admin
    token: ` + adminToken + `
`
	path := filepath.Join(dir, "policy.yaml")
	if err := os.WriteFile(path, []byte(policy), 0o600); err != nil {
		t.Fatal(err)
	}
	pol, err := LoadPolicy(path)
	if err != nil {
		t.Fatal(err)
	}
	return pol
}

// httpGateway serves a gateway over farm on a loopback httptest server; its debug log is
// returned so tests can read it.
type httpGateway struct {
	g       *Gateway
	srv     *httptest.Server
	logs    *logtest.Buffer
	metrics *Metrics
}

func startHTTPGateway(t *testing.T, farm Farm, opts Options) *httpGateway {
	t.Helper()
	logs := &logtest.Buffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	m := NewMetrics(prometheus.NewRegistry())
	g := New(farm, log, m, opts)
	t.Cleanup(g.Close) // after srv.Close (cleanups run last first): ends the session sweeper
	srv := httptest.NewServer(g.Handler())
	t.Cleanup(srv.Close)
	return &httpGateway{g: g, srv: srv, logs: logs, metrics: m}
}

// connect returns an initialized streamable HTTP client sending token (none if empty).
func (h *httpGateway) connect(t *testing.T, token string) (*client.Client, error) {
	t.Helper()
	var opts []transport.StreamableHTTPCOption
	if token != "" {
		opts = append(opts, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	}
	c, err := client.NewStreamableHttpClient(h.srv.URL+"/mcp", opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if err := c.Start(context.Background()); err != nil {
		return nil, err
	}
	req := mcpgo.InitializeRequest{}
	req.Params.ClientInfo = mcpgo.Implementation{Name: "auth-test", Version: "1"}
	if _, err := c.Initialize(context.Background(), req); err != nil {
		return nil, err
	}
	return c, nil
}

func (h *httpGateway) mustConnect(t *testing.T, token string) *client.Client {
	t.Helper()
	c, err := h.connect(t, token)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// post sends a raw initialize request to /mcp.
func (h *httpGateway) post(t *testing.T, header http.Header, host string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, h.srv.URL+"/mcp",
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = header
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if host != "" {
		req.Host = host
	}
	resp, err := h.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

func (h *httpGateway) denied(reason string) float64 {
	return counterValue(nil, h.metrics.denied.WithLabelValues(reason))
}

// counterValue reads a counter.
func counterValue(t *testing.T, c prometheus.Counter) float64 {
	var m dto.Metric
	if err := c.Write(&m); err != nil && t != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}

func toolNames(t *testing.T, c *client.Client) []string {
	t.Helper()
	res, err := c.ListTools(context.Background(), mcpgo.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}

// Without a token, or with a wrong one, /mcp answers 401 and says how to pass a token; the
// probes and /metrics stay open.
func TestAuthMissingOrWrongTokenIs401(t *testing.T) {
	farm := newFakeFarm(t)
	h := startHTTPGateway(t, farm, Options{Policy: testPolicy(t)})

	resp, body := h.post(t, http.Header{}, "")
	if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
		t.Fatalf("no token: %s %q %s", resp.Status, resp.Header.Get("WWW-Authenticate"), body)
	}
	if !strings.Contains(body, "Authorization: Bearer <token>") || !strings.Contains(body, `"jsonrpc":"2.0"`) {
		t.Errorf("no token: body %s does not say how to pass a token", body)
	}
	for _, bad := range []string{"Bearer wrong-token-0123456789", "Basic " + adminToken, adminToken, "Bearer"} {
		resp, body = h.post(t, http.Header{"Authorization": {bad}}, "")
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("Authorization %q: %s %s", bad, resp.Status, body)
		}
	}
	resp, _ = h.post(t, http.Header{"Authorization": {"bearer " + adminToken}}, "")
	if resp.StatusCode != http.StatusOK {
		t.Errorf("a valid token (scheme in lower case): %s", resp.Status)
	}
	if _, err := h.connect(t, ""); !errors.Is(err, transport.ErrAuthorizationRequired) {
		t.Errorf("MCP client without a token: %v", err)
	}
	if _, err := h.connect(t, "wrong-token-0123456789"); !errors.Is(err, transport.ErrAuthorizationRequired) {
		t.Errorf("MCP client with a wrong token: %v", err)
	}
	for _, path := range []string{"/healthz", "/readyz", "/metrics"} {
		r, err := h.srv.Client().Get(h.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		_ = r.Body.Close()
		if r.StatusCode != http.StatusOK {
			t.Errorf("%s without a token: %s", path, r.Status)
		}
	}
	if h.denied(reasonNoToken) < 2 || h.denied(reasonBadToken) < 2 {
		t.Errorf("denied counts: no_token %v bad_token %v", h.denied(reasonNoToken), h.denied(reasonBadToken))
	}
	if n := touches(farm); n != 0 {
		t.Fatalf("refused requests reached the farm %d times", n)
	}
}

// A read-only principal sees only read-only tools, and a call to another is an isError result
// naming the rule that touches nothing: no task, no lease.
func TestAuthReadOnlyPrincipalTouchesNothing(t *testing.T) {
	farm := newFakeFarm(t)
	h := startHTTPGateway(t, farm, Options{Policy: testPolicy(t)})
	c := h.mustConnect(t, viewerToken)

	names := toolNames(t, c)
	ro := toolSets()[profileReadOnly]
	if len(names) == 0 || len(names) != len(ro) {
		t.Fatalf("viewer sees %v, want the read-only tools %v", names, ro)
	}
	for i, n := range names {
		if n != ro[i] { // catalog order kept
			t.Fatalf("viewer's tools/list %v is not the read-only tools in catalog order %v", names, ro)
		}
	}

	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"tap_xy", map[string]any{"serial": "emulator-5554", "x": 0.5, "y": 0.5}},
		{"acquire_device", map[string]any{}},
		{"select_device", map[string]any{"serial": "emulator-5554"}},
		{"app_uninstall", map[string]any{"serial": "emulator-5554", "package_name": "com.corral.notes"}},
		{"abort_task", map[string]any{"serial": "emulator-5554"}},
	} {
		res := callTool(t, tc.tool, c, tc.args)
		wantError(t, res, `denied by policy: principal "viewer" may not call `+tc.tool+` (rule: tools [readonly])`)
	}
	if n := touches(farm); n != 0 {
		t.Fatalf("denied calls touched the farm %d times", n)
	}
	if got := h.denied(reasonTool); got != 5 {
		t.Errorf("corral_gateway_denied_total{reason=tool} = %v, want 5", got)
	}
	if got := counterValue(t, h.metrics.calls.WithLabelValues("tap_xy", "refused")); got != 1 {
		t.Errorf("tap_xy refused calls = %v, want 1", got)
	}

	// What it may call works, and the node sees who asked.
	wantOK(t, "get_screen_size", callTool(t, "get_screen_size", c, map[string]any{"serial": "emulator-5554"}))
	runs := farm.Runs()
	if len(runs) != 1 || runs[0].Holder.Principal != "viewer" || runs[0].Holder.Client != "auth-test" {
		t.Fatalf("runs %+v: want one, held by viewer (auth-test)", runs)
	}
}

// A tag-restricted principal sees and uses only its devices; others are refused naming the
// rule before anything reaches a node.
func TestAuthTagRestrictedPrincipal(t *testing.T) {
	farm := newFakeFarm(t)
	h := startHTTPGateway(t, farm, Options{Policy: testPolicy(t)})
	c := h.mustConnect(t, labToken)

	list := wantOK(t, "list_available_devices", callTool(t, "list_available_devices", c, nil))
	devs, _ := list["devices"].([]any)
	if len(devs) != 1 || devs[0].(map[string]any)["serial"] != "emulator-5554" {
		t.Fatalf("lab sees %v, want only emulator-5554 (tagged wifi)", list)
	}
	if ios := list["iosDevices"].([]any); len(ios) != 0 {
		t.Fatalf("lab sees iOS devices %v", ios)
	}

	const rule = `denied by policy: principal "lab" may not use device 00008101-IPHONE (rule: tags [wifi]; the device has tags [])`
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"tap_xy", map[string]any{"serial": "00008101-IPHONE", "x": 0.5, "y": 0.5}},
		{"get_device_status", map[string]any{"serial": "00008101-IPHONE"}},
		{"select_device", map[string]any{"serial": "00008101-IPHONE"}},
		{"acquire_device", map[string]any{"serial": "00008101-IPHONE"}},
		{"release_device", map[string]any{"serial": "00008101-IPHONE", "lease": "lease_x"}},
		{"abort_task", map[string]any{"serial": "00008101-IPHONE"}},
	} {
		wantError(t, callTool(t, tc.tool, c, tc.args), rule)
	}
	if n := touches(farm); n != 0 {
		t.Fatalf("denied calls touched the farm %d times", n)
	}
	if got := h.denied(reasonDevice); got != 6 {
		t.Errorf("corral_gateway_denied_total{reason=device} = %v, want 6", got)
	}

	// "Any device" means any of its own, and the lease is held in its name.
	res := wantOK(t, "acquire_device", callTool(t, "acquire_device", c, map[string]any{}))
	if l := res["lease"].(map[string]any); l["serial"] != "emulator-5554" || !strings.HasPrefix(l["holder"].(string), "lab") {
		t.Fatalf("acquire_device: %v", res)
	}
	farm.mu.Lock()
	acquires := slices.Clone(farm.acquires)
	farm.mu.Unlock()
	for _, a := range acquires {
		if a.Serial != "emulator-5554" {
			t.Fatalf("acquire_device asked for %s, which lab may not use", a.Serial)
		}
	}
	wantOK(t, "tap_xy", callTool(t, "tap_xy", c, map[string]any{"serial": "emulator-5554", "x": 0.5, "y": 0.5}))
}

// A tag-limited principal sees only the leases and task records of its devices, and its
// aborts by task id or lease carry its tags so no node aborts on another device.
func TestAuthTagRestrictedPrincipalLeasesRecordsAborts(t *testing.T) {
	farm := newFakeFarm(t)
	farm.LeasesFn = func(context.Context) ([]broker.Lease, error) {
		return []broker.Lease{
			{Serial: "00008101-IPHONE", Holder: broker.Holder{Principal: "admin"}},
			{Serial: "emulator-5554", Holder: broker.Holder{Principal: "lab"}},
			{Serial: "gone-from-registry", Holder: broker.Holder{Principal: "admin"}},
		}, nil
	}
	farm.TaskRecordFn = func(_ context.Context, id string) (broker.TaskResult, error) {
		serial := map[string]string{"task_lab": "emulator-5554", "task_ios": "00008101-IPHONE"}[id]
		return broker.TaskResult{ID: id, Serial: serial, Tool: "tap_xy", Outcome: broker.OutcomeSucceeded}, nil
	}
	h := startHTTPGateway(t, farm, Options{Policy: testPolicy(t)})
	lab, admin := h.mustConnect(t, labToken), h.mustConnect(t, adminToken)

	serials := func(c *client.Client) []string {
		var out []string
		for _, l := range wantOK(t, "list_leases", callTool(t, "list_leases", c, nil))["leases"].([]any) {
			out = append(out, l.(map[string]any)["serial"].(string))
		}
		return out
	}
	if got := serials(lab); !slices.Equal(got, []string{"emulator-5554"}) {
		t.Errorf("lab's list_leases shows %v, want only emulator-5554", got)
	}
	if got := serials(admin); len(got) != 3 {
		t.Errorf("admin's list_leases shows %v, want all three", got)
	}

	wantOK(t, "get_task_result", callTool(t, "get_task_result", lab, map[string]any{"task_id": "task_lab"}))
	wantError(t, callTool(t, "get_task_result", lab, map[string]any{"task_id": "task_ios"}),
		`denied by policy: principal "lab" may not read task task_ios: it ran on a device outside its rule (tags [wifi])`)
	wantOK(t, "get_task_result", callTool(t, "get_task_result", admin, map[string]any{"task_id": "task_ios"}))

	callTool(t, "abort_task", lab, map[string]any{"task_id": "task_ios"})
	callTool(t, "abort_task", admin, map[string]any{"task_id": "task_ios"})
	farm.mu.Lock()
	aborts := slices.Clone(farm.aborts)
	farm.mu.Unlock()
	if len(aborts) != 2 || !slices.Equal(aborts[0].Tags, []string{"wifi"}) || aborts[1].Tags != nil {
		t.Fatalf("aborts sent %+v; want lab's limited to [wifi], admin's unlimited", aborts)
	}
}

// Host and Origin headers that do not name loopback are refused with 403 naming the header,
// unless --allowed-origins lists them.
func TestAuthHostAndOriginChecks(t *testing.T) {
	farm := newFakeFarm(t)
	h := startHTTPGateway(t, farm, Options{AllowedOrigins: []string{"corral.example.com", "https://agents.example.com"}})

	for _, c := range []struct {
		host, origin string
		status       int
		says         string
	}{
		{"evil.com", "", http.StatusForbidden, `Host header "evil.com"`},
		{"evil.com:8420", "", http.StatusForbidden, `Host header "evil.com:8420"`},
		{"", "http://evil.com", http.StatusForbidden, `Origin header "http://evil.com"`},
		{"", "null", http.StatusForbidden, `Origin header "null"`},
		{"", "http://agents.example.com", http.StatusForbidden, "Origin header"}, // scheme differs
		{"localhost:8420", "", http.StatusOK, ""},
		{"[::1]:8420", "http://127.0.0.1:6274", http.StatusOK, ""},
		{"corral.example.com:443", "", http.StatusOK, ""},
		{"", "https://agents.example.com", http.StatusOK, ""},
		{"", "http://localhost:6274", http.StatusOK, ""},
	} {
		header := http.Header{}
		if c.origin != "" {
			header.Set("Origin", c.origin)
		}
		resp, body := h.post(t, header, c.host)
		if resp.StatusCode != c.status || !strings.Contains(body, c.says) {
			t.Errorf("Host %q Origin %q: %s %q; want %d saying %q", c.host, c.origin, resp.Status, body, c.status, c.says)
		}
	}
	// The probes are checked as well: a rebinding page must not read /metrics either.
	req, _ := http.NewRequest(http.MethodGet, h.srv.URL+"/metrics", nil)
	req.Host = "evil.com"
	resp, err := h.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("/metrics with Host evil.com: %s", resp.Status)
	}
	if h.denied(reasonHost) != 3 || h.denied(reasonOrigin) != 3 {
		t.Errorf("denied: host %v origin %v", h.denied(reasonHost), h.denied(reasonOrigin))
	}
	if len(farm.Runs()) != 0 {
		t.Fatal("a refused request reached the farm")
	}
}

// Without a policy nothing changes: no token needed, every tool, every device, "anonymous".
func TestAuthWithoutPolicyServesAnonymous(t *testing.T) {
	farm := newFakeFarm(t)
	h := startHTTPGateway(t, farm, Options{})
	c := h.mustConnect(t, "")
	if n := len(toolNames(t, c)); n != len(catalog()) {
		t.Fatalf("tools/list has %d tools, want %d", n, len(catalog()))
	}
	wantOK(t, "tap_xy", callTool(t, "tap_xy", c, map[string]any{"serial": "00008101-IPHONE", "x": 0.1, "y": 0.1}))
	if runs := farm.Runs(); len(runs) != 1 || runs[0].Holder.Principal != "anonymous" {
		t.Fatalf("runs %+v", runs)
	}
}

// A gateway with a policy gives nothing to a caller that did not come through HTTP with a
// token (an in-process client).
func TestAuthInProcessCallerWithPolicyGetsNothing(t *testing.T) {
	farm := newFakeFarm(t)
	c := inProcessClient(t, New(farm, slog.New(slog.DiscardHandler), NewMetrics(prometheus.NewRegistry()), Options{Policy: testPolicy(t)}))
	if names := toolNames(t, c); len(names) != 0 {
		t.Fatalf("tools/list without a principal: %v", names)
	}
	req := mcpgo.CallToolRequest{}
	req.Params.Name = "tap_xy"
	req.Params.Arguments = map[string]any{"serial": "emulator-5554", "x": 0.5, "y": 0.5}
	if res, err := c.CallTool(context.Background(), req); err == nil && !res.IsError {
		t.Fatalf("tap_xy without a principal succeeded: %s", resultText(res))
	}
	if len(farm.Runs()) != 0 {
		t.Fatal("a call without a principal reached the farm")
	}
}

// Tokens never reach the logs: not on refusal, not on success, not at debug level.
func TestAuthTokenNeverLogged(t *testing.T) {
	farm := newFakeFarm(t)
	h := startHTTPGateway(t, farm, Options{Policy: testPolicy(t)})
	const wrong = "wrong-token-9d8c7b6a5f4e"
	_, _ = h.connect(t, wrong)
	_, _ = h.connect(t, "")
	c := h.mustConnect(t, viewerToken)
	toolNames(t, c)
	wantOK(t, "screenshot", callTool(t, "screenshot", c, map[string]any{"serial": "emulator-5554"}))
	wantError(t, callTool(t, "tap_xy", c, map[string]any{"serial": "emulator-5554", "x": 0.5, "y": 0.5}), "denied by policy")
	l := h.mustConnect(t, labToken)
	wantError(t, callTool(t, "screenshot", l, map[string]any{"serial": "android-busy"}), "denied by policy")

	logs := h.logs.String()
	if !strings.Contains(logs, "refused unauthenticated request") {
		t.Fatalf("the refusals were not logged at all:\n%s", logs)
	}
	for _, secret := range []string{wrong, viewerToken, labToken, adminToken, sha256Hex(viewerToken)} {
		if strings.Contains(logs, secret) {
			t.Fatalf("the log shows a token:\n%s", logs)
		}
	}
}

// touches counts the requests that reached the farm: tasks, acquires, releases, aborts.
func touches(f *fakeFarm) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.runs) + len(f.acquires) + len(f.releases) + len(f.aborts)
}

// callTool calls a tool over c and fails the test on a protocol error.
func callTool(t *testing.T, tool string, c *client.Client, args map[string]any) *mcpgo.CallToolResult {
	t.Helper()
	req := mcpgo.CallToolRequest{}
	req.Params.Name = tool
	if args != nil {
		req.Params.Arguments = args
	}
	res, err := c.CallTool(context.Background(), req)
	if err != nil {
		t.Fatalf("%s %v: protocol error: %v", tool, args, err)
	}
	return res
}
