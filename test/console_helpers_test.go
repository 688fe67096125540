package test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/chromium"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// consoleBrowser starts a headless Chromium with a laptop's window (1280×800) for the console;
// without Chromium the test is skipped, or fails under CORRAL_REQUIRE_TOOLS.
func consoleBrowser(t *testing.T) context.Context {
	t.Helper()
	needChromium(t)
	path, err := chromium.Find()
	if err != nil {
		t.Fatal(err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.WindowSize(1280, 800))
	if os.Geteuid() == 0 { // Chromium's sandbox refuses to run as root
		opts = append(opts, chromedp.NoSandbox)
	}
	// Chromium has died at start-up on a loaded machine (as nodes/web's driver, try once more).
	for try := 1; ; try++ {
		actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
		t.Cleanup(cancel)
		ctx, cancel := chromedp.NewContext(actx)
		t.Cleanup(cancel)
		err := chromedp.Do(ctx) // starts the browser, for as long as ctx lives
		if err == nil {
			return ctx
		}
		if try == 2 || !chromium.DiedAtStart(err) {
			t.Fatal(err)
		}
		t.Logf("the browser died while starting, trying once more: %v", err)
	}
}

// browse runs steps in the browser within 30 s.
func browse(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(rctx, steps...); err != nil {
		t.Fatal(err)
	}
}

// evalPage evaluates expr in the page.
func evalPage[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(rctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// waitPage evaluates expr in the page every 20 ms until it yields a value ok accepts (an
// exception counts as not yet), and returns that value; the test fails after timeout.
// pageWait bounds a wait for what a page shows that comes from the farm (a live screen, an
// action's answer): generous, as a loaded 2-core machine running -race with Chromium beside it
// took over 15 s for a first frame; a passing wait costs what it takes.
const pageWait = 45 * time.Second

func waitPage[T any](t *testing.T, ctx context.Context, timeout time.Duration, what, expr string, ok func(T) bool) T {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var last T
	var lastErr error
	for {
		ectx, cancel := context.WithTimeout(ctx, 5*time.Second)
		v, err := chromedp.Run(ectx, chromedp.Evaluate[T](expr))
		cancel()
		if err == nil && ok(v) {
			return v
		}
		last, lastErr = v, err
		if time.Now().After(deadline) {
			ectx, cancel := context.WithTimeout(ctx, 5*time.Second)
			page, _ := chromedp.Run(ectx, chromedp.Evaluate[string](`location.href + "\n" + document.body.innerText.slice(0, 400)`))
			cancel()
			t.Fatalf("not within %s: %s (last: %+v, %v); the page: %s", timeout, what, last, lastErr, page)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// cardsJS lists the grid's cards as "serial state holder", in order.
const cardsJS = `[...document.querySelectorAll('#wall [data-serial]')].map(e =>
  e.dataset.serial + ' ' + e.querySelector('[data-f=state]').textContent + ' ' + e.querySelector('[data-f=holder]').textContent)`

// screenJS is the natural size of the live screen under the element of serial, once loaded.
func screenJS(serial string) string {
	return fmt.Sprintf(`(() => {
  const i = document.querySelector('[data-serial=%q] img[data-screen]');
  return i && !i.hidden && i.complete && i.naturalWidth > 0 ? [i.naturalWidth, i.naturalHeight] : [];
})()`, serial)
}

// saveDoc saves a screenshot of the page as docs/images/<name> when CORRAL_UPDATE_DOCS is set
// (the docs show them; normal runs leave the tree alone).
func saveDoc(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	if os.Getenv("CORRAL_UPDATE_DOCS") == "" {
		return
	}
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	png, err := chromedp.Run(rctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "docs", "images", name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s", path)
}

// scrape reads the value of one series from a gateway's /metrics (0 when absent).
func scrape(t *testing.T, base, series string) float64 {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), series+" "); ok {
			v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
			if err != nil {
				t.Fatalf("%s: %v", series, err)
			}
			return v
		}
	}
	return 0
}

// getAs fetches a console path with a bearer token ("" for none): status and body.
func getAs(t *testing.T, url, token string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 64<<10)
	for b.Len() < 1<<20 { // a frames stream never ends: read what came at once
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil || resp.StatusCode == http.StatusOK && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			break
		}
	}
	return resp.StatusCode, b.String()
}

// consoleSerials reads the serials of /console/api/devices as a token sees them.
func consoleSerials(t *testing.T, base, token string) []string {
	t.Helper()
	status, body := getAs(t, base+"/console/api/devices", token)
	if status != http.StatusOK {
		t.Fatalf("/console/api/devices: %d %s", status, body)
	}
	var g struct {
		Devices []struct {
			Serial string `json:"serial"`
		} `json:"devices"`
	}
	if err := json.Unmarshal([]byte(body), &g); err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for _, d := range g.Devices {
		out = append(out, d.Serial)
	}
	return out
}

// consolePolicyGateway serves a gateway over f with the policy given as YAML, once it sees f's
// phones; its base URL.
func consolePolicyGateway(t *testing.T, f *farmtest.Farm, policy string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "policy.yaml")
	require.NoError(t, os.WriteFile(path, []byte(policy), 0o600))
	pol, err := mcp.LoadPolicy(path)
	require.NoError(t, err)
	nc, err := broker.Connect(broker.ConnectOptions{URL: f.URL, Name: "console-gateway"}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	c, url := serveGateway(t, nc, slog.New(slog.DiscardHandler), mcp.Options{Policy: pol})
	farmtest.Eventually(t, 10*time.Second, func() bool { return len(c.Devices()) == len(f.Devices()) }, "the gateway sees the phones")
	return strings.TrimSuffix(url, "/mcp")
}
