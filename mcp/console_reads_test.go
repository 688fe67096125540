package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// Tokens of the policy below.
const (
	homerToken   = "homer-token-9e3a7c1f5b2d"
	fullToken    = "full-token-5c1e9a3d7f2b"
	readerToken2 = "reader2-token-7d2f4b8e1a6c"
)

// readsPolicy: homer may call home only, on the simulated phones; full may call everything;
// reader has the readonly profile.
const readsPolicy = `principals:
  - name: homer
    token: ` + homerToken + `
    tags: [sim]
    tools: [home]
  - name: full
    token: ` + fullToken + `
  - name: reader
    token: ` + readerToken2 + `
    tools: [readonly]
`

// loggedIn is a browser logged in to the console at gw with token.
func loggedIn(t *testing.T, gw, token string) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	b := &http.Client{Jar: jar}
	if resp, body := do(t, b, http.MethodGet, gw+"/?token="+token, "", nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("log in: %d %.300s", resp.StatusCode, body)
	}
	return b
}

// callAs calls tool on the gateway's /mcp with token.
func callAs(t *testing.T, gw, token, tool string, args map[string]any) *mcpgo.CallToolResult {
	t.Helper()
	c, err := client.NewStreamableHttpClient(gw+"/mcp", transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	init := mcpgo.InitializeRequest{}
	init.Params.ClientInfo = mcpgo.Implementation{Name: "reads-test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	req := mcpgo.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = tool, args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// The console shows a principal only what /mcp would: homer, whose tools are [home], is refused
// screenshot, list_available_devices, get_device_status and get_task_result there, so the
// console gives it no live frames, no device list, none of a device's facts and no timeline
// (another principal's task included), and its pages say why; it still has its Home button, and
// no read-only badge (it may change devices). A principal with every tool sees all of it; one
// with the readonly profile sees it all too, with the badge and no controls.
func TestConsoleShowsOnlyWhatTheTokensToolsRead(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	serial := f.Devices()[0].Serial
	pol, err := mcp.ParsePolicy([]byte(readsPolicy), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	gw := policyGateway(t, f, pol)
	path := url.PathEscape(serial)

	if res := callAs(t, gw, fullToken, "home", map[string]any{"serial": serial}); res.IsError {
		t.Fatalf("home as full: %v", res.Content)
	}
	for _, tool := range []string{"screenshot", "list_available_devices", "get_device_status", "get_task_result"} {
		args := map[string]any{"serial": serial}
		if tool == "get_task_result" {
			args = map[string]any{"task_id": "t_whatever"}
		}
		if res := callAs(t, gw, homerToken, tool, args); !res.IsError {
			t.Fatalf("/mcp lets homer call %s: the console's rule below would not mirror it", tool)
		}
	}

	homer, full, reader := loggedIn(t, gw, homerToken), loggedIn(t, gw, fullToken), loggedIn(t, gw, readerToken2)

	// Live frames.
	frames := func(b *http.Client) (int, string) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, gw+"/console/frames?serial="+url.QueryEscape(serial), nil)
		resp, err := b.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		buf := make([]byte, 512)
		n, _ := resp.Body.Read(buf)
		return resp.StatusCode, string(buf[:n])
	}
	if code, body := frames(homer); code != http.StatusForbidden || !strings.Contains(body, "may not call screenshot") {
		t.Errorf("homer's frames: %d %q; want 403 naming screenshot", code, body)
	}
	if code, body := frames(full); code != http.StatusOK {
		t.Errorf("full's frames: %d %q", code, body)
	}

	// The device list.
	var grid struct {
		Devices []struct {
			Serial string `json:"serial"`
		} `json:"devices"`
		Hidden string `json:"hidden"`
	}
	getJSON := func(b *http.Client, u string, v any) {
		t.Helper()
		resp, body := do(t, b, http.MethodGet, gw+u, "", nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %.300s", u, resp.StatusCode, body)
		}
		if err := json.Unmarshal([]byte(body), v); err != nil {
			t.Fatalf("%s: %v: %.300s", u, err, body)
		}
	}
	getJSON(homer, "/console/api/devices", &grid)
	if len(grid.Devices) != 0 || !strings.Contains(grid.Hidden, "may not call list_available_devices") {
		t.Errorf("homer's grid: %+v; want no devices and why", grid)
	}
	grid.Devices, grid.Hidden = nil, ""
	getJSON(full, "/console/api/devices", &grid)
	if len(grid.Devices) != 1 || grid.Hidden != "" {
		t.Errorf("full's grid: %+v", grid)
	}

	// A device's facts and timeline.
	type deviceData struct {
		Device struct {
			Serial string `json:"serial"`
			Node   string `json:"node"`
			State  string `json:"state"`
		} `json:"device"`
		Tasks []struct {
			Tool   string `json:"tool"`
			Holder string `json:"holder"`
		} `json:"tasks"`
		TasksError   string `json:"tasks_error"`
		StatusHidden string `json:"status_hidden"`
	}
	var d deviceData
	getJSON(homer, "/console/api/devices/"+path, &d)
	if d.Device.Serial != serial || d.Device.Node != "" || d.Device.State != "" || !strings.Contains(d.StatusHidden, "may not call get_device_status") {
		t.Errorf("homer's device: %+v; want the serial only, and why", d)
	}
	if len(d.Tasks) != 0 || !strings.Contains(d.TasksError, "may not call get_task_result") {
		t.Errorf("homer's timeline: %+v; want none, and why", d)
	}
	if resp, body := do(t, homer, http.MethodGet, gw+"/console/devices/"+path+"/timeline", "", nil); resp.StatusCode != http.StatusForbidden ||
		!strings.Contains(body, "get_task_result") {
		t.Errorf("homer's timeline rows: %d %.300s", resp.StatusCode, body)
	}
	farmtest.Eventually(t, 10*time.Second, func() bool {
		d = deviceData{}
		getJSON(full, "/console/api/devices/"+path, &d)
		return len(d.Tasks) > 0
	}, "full's timeline shows its home")
	if d.StatusHidden != "" || d.Device.Node == "" || d.Tasks[0].Tool != "home" || !strings.HasPrefix(d.Tasks[0].Holder, "full") {
		t.Errorf("full's device: %+v", d)
	}

	// The pages say what is hidden; homer has its Home button and no read-only badge.
	_, page := do(t, homer, http.MethodGet, gw+"/devices/"+path, "", nil)
	for _, want := range []string{"may not call screenshot", "may not call get_device_status", "may not call get_task_result", `data-action="home"`} {
		if !strings.Contains(page, want) {
			t.Errorf("homer's device page lacks %q", want)
		}
	}
	for _, not := range []string{`class="ro"`, `data-action="acquire"`, `data-action="back"`} {
		if strings.Contains(page, not) {
			t.Errorf("homer's device page shows %q", not)
		}
	}
	if _, page := do(t, homer, http.MethodGet, gw+"/", "", nil); !strings.Contains(page, "may not call list_available_devices") {
		t.Errorf("homer's grid page does not say why it lists nothing")
	}
	_, page = do(t, full, http.MethodGet, gw+"/devices/"+path, "", nil)
	if strings.Contains(page, "may not call") || strings.Contains(page, `class="ro"`) || !strings.Contains(page, `data-action="acquire"`) {
		t.Errorf("full's device page hides something, or is read-only")
	}
	_, page = do(t, reader, http.MethodGet, gw+"/devices/"+path, "", nil)
	if strings.Contains(page, "may not call") || !strings.Contains(page, `class="ro"`) || strings.Contains(page, "data-action=") {
		t.Errorf("reader's device page: want everything shown, the read-only badge and no controls")
	}
}
