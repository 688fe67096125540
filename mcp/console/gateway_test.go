package console_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// The console through real gateways over a real farm of simulated phones.

const (
	aliceToken   = "alice-token-0123456789abcdef"
	aliceRotated = "alice-token-rotated-98765432"
)

func policyOf(token string) string {
	return "principals:\n  - name: alice\n    token: " + token + "\n    operator: true\n"
}

// policyGateway serves another gateway over f with the policy given as YAML (the same policy
// on two gateways: replicas behind a load balancer); its base URL.
func policyGateway(t *testing.T, f *farmtest.Farm, policy string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(path, []byte(policy), 0o600); err != nil {
		t.Fatal(err)
	}
	pol, err := mcp.LoadPolicy(path)
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.DiscardHandler)
	nc, err := broker.Connect(broker.ConnectOptions{URL: f.URL, Name: "console-test-gateway"}, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	stores, err := broker.EnsureStores(ctx, nc, broker.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	c, err := broker.NewClient(ctx, nc, stores, broker.ClientOptions{Log: log, Reap: true, Metrics: broker.NewClientMetrics(reg)})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(mcp.New(c, log, mcp.NewMetrics(reg), mcp.Options{Policy: pol, Ready: c.Ready, Gatherer: reg}).Handler())
	t.Cleanup(func() { hs.CloseClientConnections(); hs.Close() })
	farmtest.Eventually(t, 10*time.Second, func() bool { return len(c.Devices()) == len(f.Devices()) }, "the gateway sees the phones")
	return hs.URL
}

// browserJar is a browser's cookies, sent to every gateway whatever its port, as browsers do.
type browserJar struct {
	t       *testing.T
	cookies map[string]*http.Cookie
}

func newJar(t *testing.T) *browserJar { return &browserJar{t: t, cookies: map[string]*http.Cookie{}} }

// do sends a request with the jar's cookies, keeps the cookies it sets, and follows no redirect.
func (j *browserJar) do(method, u, body string, header ...string) (int, string) {
	j.t.Helper()
	req, err := http.NewRequestWithContext(j.t.Context(), method, u, strings.NewReader(body))
	if err != nil {
		j.t.Fatal(err)
	}
	for _, c := range j.cookies {
		req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	client := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		j.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for _, c := range resp.Cookies() {
		if c.MaxAge < 0 {
			delete(j.cookies, c.Name)
		} else {
			j.cookies[c.Name] = c
		}
	}
	return resp.StatusCode, string(b)
}

// csrf opens a page and returns its CSRF token.
func (j *browserJar) csrf(pageURL string) string {
	j.t.Helper()
	status, body := j.do(http.MethodGet, pageURL, "")
	_, tok, _ := strings.Cut(body, `<meta name="corral-csrf" content="`)
	tok, _, _ = strings.Cut(tok, `"`)
	if status != http.StatusOK || tok == "" {
		j.t.Fatalf("%s: %d, no CSRF token", pageURL, status)
	}
	return tok
}

// act posts an action as the device page does.
func (j *browserJar) act(base, serial, action, csrf, body string) (int, map[string]any) {
	j.t.Helper()
	status, text := j.do(http.MethodPost, base+"/console/devices/"+serial+"/actions/"+action, body,
		"X-Corral-CSRF", csrf, "Content-Type", "application/json", "Sec-Fetch-Site", "same-origin")
	var a map[string]any
	if err := json.Unmarshal([]byte(text), &a); err != nil {
		j.t.Fatalf("%s: %d %s", action, status, text)
	}
	return status, a
}

// leaseCookies are the jar's lease cookies.
func (j *browserJar) leaseCookies() []*http.Cookie {
	var out []*http.Cookie
	for _, c := range j.cookies {
		if strings.HasPrefix(c.Name, "corral_lease_") {
			out = append(out, c)
		}
	}
	return out
}

// mcpStatus is the HTTP status of an MCP initialize on /mcp with a bearer token.
func mcpStatus(t *testing.T, base, bearer string) int {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, base+"/mcp",
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+bearer)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// Finding 1: the console's cookies are useless to whoever receives them elsewhere (a server on
// another port of the gateway's host): the login cookie holds no token and is refused on /mcp,
// the lease cookie shows no handle. Yet another gateway of the farm takes both, and a changed
// token ends the login.
func TestConsoleCookiesHoldNoTokenNorHandle(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 2, Quiet: true})
	gwA, gwB := policyGateway(t, f, policyOf(aliceToken)), policyGateway(t, f, policyOf(aliceToken))
	if status := mcpStatus(t, gwA, aliceToken); status != http.StatusOK {
		t.Fatalf("the token itself on /mcp: %d", status)
	}

	jar := newJar(t)
	if status, _ := jar.do(http.MethodGet, gwA+"/devices/n1-p1?token="+url.QueryEscape(aliceToken), ""); status != http.StatusSeeOther {
		t.Fatalf("login by ?token=: %d", status)
	}
	login := jar.cookies["corral_console"]
	if login == nil {
		t.Fatal("no login cookie")
	}
	for _, leak := range []string{aliceToken, base64.RawURLEncoding.EncodeToString([]byte(aliceToken)), base64.StdEncoding.EncodeToString([]byte(aliceToken))} {
		if strings.Contains(login.Value, leak) {
			t.Fatalf("the login cookie %q holds the token", login.Value)
		}
	}
	if status := mcpStatus(t, gwA, login.Value); status != http.StatusUnauthorized {
		t.Errorf("the login cookie as a bearer token on /mcp: %d, want 401", status)
	}

	// Acquire on gateway A; the lease cookie shows no handle; gateway B taps under it and
	// releases it.
	csrfA := jar.csrf(gwA + "/devices/n1-p1")
	if status, a := jar.act(gwA, "n1-p1", "acquire", csrfA, ""); status != http.StatusOK || a["held"] != true {
		t.Fatalf("acquire on A: %d %v", status, a)
	}
	leases := jar.leaseCookies()
	if len(leases) != 1 {
		t.Fatalf("lease cookies: %v", leases)
	}
	raw, _ := base64.RawURLEncoding.DecodeString(leases[0].Value)
	if strings.Contains(string(raw), "n1-p1") || strings.Contains(string(raw), `"h"`) || strings.Contains(leases[0].Value, "lease") {
		t.Fatalf("the lease cookie is readable: %q", raw)
	}
	if status := mcpStatus(t, gwA, leases[0].Value); status != http.StatusUnauthorized {
		t.Errorf("the lease cookie as a bearer token on /mcp: %d", status)
	}
	csrfB := jar.csrf(gwB + "/devices/n1-p1")
	if csrfB != csrfA {
		t.Errorf("the two gateways give one session different CSRF tokens")
	}
	if status, a := jar.act(gwB, "n1-p1", "tap", csrfB, `{"x":0.5,"y":0.5}`); status != http.StatusOK {
		t.Errorf("tap on B under A's lease: %d %v", status, a)
	}
	farmtest.Eventually(t, 10*time.Second, func() bool {
		dev, _ := f.Gateway().Client.Device("n1-p1")
		return dev.Holder == "alice (console)"
	}, "n1-p1 held by the console")
	if status, a := jar.act(gwB, "n1-p1", "release", csrfB, ""); status != http.StatusOK || a["held"] != false {
		t.Errorf("release on B of A's lease: %d %v", status, a)
	}

	// A forged login (another name, or the cookie changed) is refused; so is the login once the
	// policy has another token for alice.
	forged := newJar(t)
	parts := strings.Split(login.Value, ".")
	parts[1] = base64.RawURLEncoding.EncodeToString([]byte("bob"))
	forged.cookies["corral_console"] = &http.Cookie{Name: "corral_console", Value: strings.Join(parts, ".")}
	if status, _ := forged.do(http.MethodGet, gwA+"/console/api/devices", ""); status != http.StatusUnauthorized {
		t.Errorf("a forged login: %d", status)
	}
	gwC := policyGateway(t, f, policyOf(aliceRotated))
	if status, _ := jar.do(http.MethodGet, gwC+"/console/api/devices", ""); status != http.StatusUnauthorized {
		t.Errorf("a login of a rotated token: %d", status)
	}
	if status, _ := jar.do(http.MethodGet, gwB+"/console/api/devices", ""); status != http.StatusOK {
		t.Errorf("the login on B: %d", status)
	}
}

// Finding 2: leases of the session that lapsed no longer count against its 16: once they have,
// the console acquires again, and their cookies are dropped.
func TestConsoleLapsedLeasesDoNotCount(t *testing.T) {
	const held = 16 // maxHeld
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: held + 1, LeaseTTL: 2 * time.Second, Quiet: true})
	base := f.Gateway().HTTP.URL
	jar := newJar(t)
	csrf := jar.csrf(base + "/")
	for _, d := range f.Devices()[:held] {
		if status, a := jar.act(base, d.Serial, "acquire", csrf, ""); status != http.StatusOK {
			t.Fatalf("acquire %s: %d %v", d.Serial, status, a)
		}
	}
	if n := len(jar.leaseCookies()); n != held {
		t.Fatalf("%d lease cookies, want %d", n, held)
	}
	farmtest.Eventually(t, 30*time.Second, func() bool {
		for _, d := range f.Devices() {
			if d.Holder != "" {
				return false
			}
		}
		return true
	}, "every lease lapses")
	// The gateway learns of the lapses from the registry a moment after farmtest does; until
	// then a refusal is right, so the acquire is asked again (a refused one changes nothing).
	serial := f.Devices()[held].Serial
	var last actAnswer
	farmtest.Eventually(t, 30*time.Second, func() bool {
		last.status, last.answer = jar.act(base, serial, "acquire", csrf, "")
		return last.status == http.StatusOK && last.answer["held"] == true
	}, "acquire once the %d leases lapsed (last answer: %v)", held, &last)
	if n := len(jar.leaseCookies()); n != 1 {
		t.Errorf("%d lease cookies after the lapse, want the new one only", n)
	}
}

// actAnswer is an action's answer, shown when a wait for a good one ends without it.
type actAnswer struct {
	status int
	answer map[string]any
}

func (a *actAnswer) String() string { return fmt.Sprintf("%d %v", a.status, a.answer) }
