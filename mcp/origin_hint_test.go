package mcp

import (
	"net/http"
	"strings"
	"testing"
)

// A refused Origin's hint does not promise --allowed-origins to a web page on another origin:
// its browser's preflight gets no CORS headers whatever the flag says (docs/auth.md), so the
// hint says whom the flag is for, and that such a page cannot reach the gateway.
func TestOriginRefusalSaysCrossOriginPagesCannotUseTheGateway(t *testing.T) {
	h := startHTTPGateway(t, newFakeFarm(t), Options{AllowedOrigins: []string{"https://agents.example.com"}})
	header := http.Header{}
	header.Set("Origin", "https://app.example.org")
	resp, body := h.post(t, header, "")
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("Origin https://app.example.org: %s %q; want 403", resp.Status, body)
	}
	for _, says := range []string{`Origin header "https://app.example.org" is not allowed`,
		"--allowed-origins admits a page served from the gateway's own site (behind a proxy) or a program that sends Origin",
		"a browser page from another origin cannot reach the gateway: it sends no CORS headers"} {
		if !strings.Contains(body, says) {
			t.Errorf("the refusal %q does not say %q", body, says)
		}
	}
	if strings.Contains(body, "if this web client should reach the gateway") {
		t.Errorf("the refusal %q still promises --allowed-origins to web clients", body)
	}
	// A preflight of the admitted origin is no CORS answer either: what the hint says is so.
	req, _ := http.NewRequest(http.MethodOptions, h.srv.URL+"/mcp", nil)
	req.Header.Set("Origin", "https://agents.example.com")
	req.Header.Set("Access-Control-Request-Method", "POST")
	pre, err := h.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	pre.Body.Close()
	if pre.StatusCode == http.StatusOK || pre.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("a preflight of an allowed origin got %s with Access-Control-Allow-Origin %q: the hint says there is no CORS",
			pre.Status, pre.Header.Get("Access-Control-Allow-Origin"))
	}
}
