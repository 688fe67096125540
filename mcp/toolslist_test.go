package mcp

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/prometheus/client_golang/prometheus"
)

// post sends one JSON-RPC message to url with the session's headers and returns the status,
// the headers that matter and the body.
func post(t *testing.T, url, session, version, body string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	if version != "" {
		req.Header.Set("Mcp-Protocol-Version", version)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type") + " " + resp.Header.Get("Mcp-Session-Id"), string(b)
}

// The cached tools/list is byte for byte what mcp-go answers, and everything that is not a
// plain tools/list of a valid session gets mcp-go's own answer, but for what the front door
// answers itself: a session id it did not issue (sessions.go), a batch (batch.go) and a cursor it
// never gave (message_shape.go: mcp-go would page by name).
func TestToolsListCacheAnswersAsMCPGo(t *testing.T) {
	for _, spec := range []string{"all", "physiclaw"} {
		names, err := SelectTools(spec)
		if err != nil {
			t.Fatal(err)
		}
		g := New(newFakeFarm(t), slog.New(slog.DiscardHandler), NewMetrics(prometheus.NewRegistry()), Options{Tools: names})
		cached := httptest.NewServer(g.Handler())
		defer cached.Close()
		plain := httptest.NewServer(mcpserver.NewStreamableHTTPServer(g.server))
		defer plain.Close()

		_, hdr, _ := post(t, cached.URL+"/mcp", "", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
		session := strings.TrimSpace(strings.TrimPrefix(hdr, "application/json"))
		if session == "" {
			t.Fatalf("initialize gave no session (%q)", hdr)
		}
		for _, tc := range []struct{ name, session, version, body string }{
			{"plain", session, "2025-06-18", `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`},
			{"string id, params", session, "", `{"jsonrpc":"2.0","id":"x-1","method":"tools/list","params":{}}`},
			{"again, from the cache", session, "2025-06-18", `{"jsonrpc":"2.0","id":8,"method":"tools/list"}`},
			{"no id", session, "2025-06-18", `{"jsonrpc":"2.0","method":"tools/list"}`},
			{"not JSON", session, "2025-06-18", `{"jsonrpc":"2.0","id":12,"method":"tools/list"`},
		} {
			cs, ch, cb := post(t, cached.URL+"/mcp", tc.session, tc.version, tc.body)
			ps, ph, pb := post(t, plain.URL, tc.session, tc.version, tc.body)
			if cs != ps || ch != ph || strings.TrimSpace(cb) != strings.TrimSpace(pb) {
				t.Errorf("--tools %s, %s: cached %d %q %.300q; mcp-go %d %q %.300q", spec, tc.name, cs, ch, cb, ps, ph, pb)
			}
		}
		if cs, _, cb := post(t, cached.URL+"/mcp", "not-a-session", "2025-06-18", `{"jsonrpc":"2.0","id":10,"method":"tools/list"}`); cs != http.StatusNotFound || !strings.Contains(cb, "session not found") {
			t.Errorf("--tools %s, bad session: %d %s", spec, cs, cb)
		}
		if cs, _, cb := post(t, cached.URL+"/mcp", session, "2025-06-18", `[{"jsonrpc":"2.0","id":11,"method":"tools/list"}]`); cs != http.StatusBadRequest || !strings.Contains(cb, "-32600") {
			t.Errorf("--tools %s, batch: %d %s", spec, cs, cb)
		}
		if cs, _, cb := post(t, cached.URL+"/mcp", session, "2025-06-18", `{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"cursor":"bm9wZQ=="}}`); cs != http.StatusOK ||
			!strings.Contains(cb, "-32602") || !strings.Contains(cb, "cursor is not one this gateway gave") {
			t.Errorf("--tools %s, cursor: %d %s", spec, cs, cb)
		}
	}
}
