package mcp_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// Tokens of the policies below.
const (
	readerToken   = "reader-token-1b7e4c9a2f6d"
	readerRotated = "reader-token-rotated-8c2d5e"
	writerToken   = "writer-token-4a9c1e7b3d5f"
	writerRotated = "writer-token-rotated-6f3b1a"
	newbieToken   = "newbie-token-2d8f6a4c1e9b"
)

// policyOf parses a policy of principals given as name, token pairs, in that order.
func policyOf(t *testing.T, pairs ...string) *mcp.Policy {
	t.Helper()
	var b strings.Builder
	b.WriteString("principals:\n")
	for i := 0; i < len(pairs); i += 2 {
		fmt.Fprintf(&b, "  - name: %s\n    token: %s\n", pairs[i], pairs[i+1])
	}
	pol, err := mcp.ParsePolicy([]byte(b.String()), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return pol
}

// policyGateway serves a gateway of its own over f with pol, as a restart with that policy
// would: it shares nothing with the others but the farm and what the policy says.
func policyGateway(t *testing.T, f *farmtest.Farm, pol *mcp.Policy) string {
	g := mcp.New(f.Gateway().Client, slog.New(slog.DiscardHandler), mcp.NewMetrics(prometheus.NewRegistry()), mcp.Options{Policy: pol})
	t.Cleanup(g.Close)
	hs := httptest.NewServer(g.Handler())
	t.Cleanup(hs.Close)
	return hs.URL
}

// do sends a request and returns its status and body.
func do(t *testing.T, c *http.Client, method, u, body string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// mcpHeaders are a raw MCP request's headers with token, and session id unless "".
func mcpHeaders(token, session string) map[string]string {
	h := map[string]string{"Authorization": "Bearer " + token, "Content-Type": "application/json",
		"Accept": "application/json, text/event-stream"}
	if session != "" {
		h["Mcp-Session-Id"] = session
	}
	return h
}

const listTools = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`

// A change to the policy ends only what the changed principal was given. Gateways (or
// restarts) whose policies differ in another principal (one added, one's token rotated, the
// file reordered) keep the reader's protocol session, console login, CSRF token and sealed
// lease cookie valid; a gateway whose policy rotated the reader's own token refuses them all.
func TestPolicyChangeEndsOnlyTheChangedPrincipalsLogins(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	serial := f.Devices()[0].Serial
	before := policyGateway(t, f, policyOf(t, "reader", readerToken, "writer", writerToken))
	others := policyGateway(t, f, policyOf(t, "newbie", newbieToken, "writer", writerRotated, "reader", readerToken))
	rotated := policyGateway(t, f, policyOf(t, "reader", readerRotated, "writer", writerToken))
	plain := &http.Client{}

	// The protocol session.
	resp, body := do(t, plain, http.MethodPost, before+"/mcp",
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		mcpHeaders(readerToken, ""))
	session := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || session == "" {
		t.Fatalf("initialize: %d %q: %.300s", resp.StatusCode, session, body)
	}
	if resp, body := do(t, plain, http.MethodPost, others+"/mcp", listTools, mcpHeaders(readerToken, session)); resp.StatusCode != http.StatusOK {
		t.Errorf("another principal changed: the reader's session is refused: %d %.300s", resp.StatusCode, body)
	}
	resp, body = do(t, plain, http.MethodPost, rotated+"/mcp", listTools, mcpHeaders(readerRotated, session))
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(body, "or its token changed since") {
		t.Errorf("the reader's token rotated: its session still taken: %d %.300s", resp.StatusCode, body)
	}

	// The console: a login, the page's CSRF token and a lease acquired, on the first gateway.
	jar, _ := cookiejar.New(nil) // cookies go to every port of the host, as a browser's do
	browser := &http.Client{Jar: jar}
	page := "/devices/" + url.PathEscape(serial)
	resp, body = do(t, browser, http.MethodGet, before+page+"?token="+readerToken, "", nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("log in: %d %.300s", resp.StatusCode, body)
	}
	csrf := csrfOf(t, body)
	act := func(gw, action string) (int, map[string]any) {
		resp, body := do(t, browser, http.MethodPost, gw+"/console/devices/"+url.PathEscape(serial)+"/actions/"+action, "",
			map[string]string{"X-Corral-CSRF": csrf})
		var a map[string]any
		_ = json.Unmarshal([]byte(body), &a)
		return resp.StatusCode, a
	}
	if code, a := act(before, "acquire"); code != http.StatusOK || a["ok"] != true {
		t.Fatalf("acquire: %d %v", code, a)
	}

	// Another principal changed: the same login, CSRF token and lease cookie work.
	resp, body = do(t, browser, http.MethodGet, others+page, "", nil)
	if resp.StatusCode != http.StatusOK || csrfOf(t, body) != csrf {
		t.Errorf("another principal changed: the reader's login or CSRF token is refused: %d %.300s", resp.StatusCode, body)
	}
	if code, a := act(others, "release"); code != http.StatusOK || a["ok"] != true {
		t.Errorf("another principal changed: the console's lease cookie is unreadable: release answered %d %v", code, a)
	}

	// The reader's own token rotated: the login and CSRF token are of no use.
	if resp, body := do(t, browser, http.MethodGet, rotated+page, "", nil); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the reader's token rotated: its login still taken: %d %.300s", resp.StatusCode, body)
	}
	if code, a := act(rotated, "acquire"); code != http.StatusForbidden {
		t.Errorf("the reader's token rotated: its CSRF token still taken: %d %v", code, a)
	}
}

// csrfOf is the CSRF token a console page embeds.
func csrfOf(t *testing.T, page string) string {
	t.Helper()
	_, rest, ok := strings.Cut(page, `<meta name="corral-csrf" content="`)
	token, _, _ := strings.Cut(rest, `"`)
	if !ok || token == "" {
		t.Fatalf("no CSRF token in the page: %.300s", page)
	}
	return token
}
