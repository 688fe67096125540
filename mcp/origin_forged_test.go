package mcp

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An Origin no browser sends is refused: one with user info (QA: `http://evil.com@127.0.0.1`
// was taken for loopback), a path or a query, and two Origin headers whose first is loopback
// (only the first was judged).
func TestForgedOriginsAreRefused(t *testing.T) {
	c, err := newOriginCheck(nil)
	require.NoError(t, err)
	for _, o := range []string{"http://evil.com@127.0.0.1", "http://u:p@localhost:8420", "http://127.0.0.1/x", "http://127.0.0.1?a", "http://127.0.0.1#f"} {
		assert.False(t, c.originAllowed(o), "Origin %q allowed", o)
	}
	assert.True(t, c.originAllowed("http://127.0.0.1:8420"))

	g := New(newFakeFarm(t), slog.New(slog.DiscardHandler), NewMetrics(prometheus.NewRegistry()), Options{})
	srv := httptest.NewServer(g.Handler())
	t.Cleanup(srv.Close)
	req, err := http.NewRequest(http.MethodGet, srv.URL+"/healthz", nil)
	require.NoError(t, err)
	req.Header["Origin"] = []string{"http://127.0.0.1", "http://evil.com"}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	body := string(b)
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, body)
	assert.True(t, strings.Contains(body, "2 Origin headers"), body)
}

// A console ?token= on a path ServeMux cleans is not carried into the redirect: QA's
// `GET //evil.com/?token=T` was answered 307 to `/evil.com/?token=T`.
func TestUncleanPathRedirectDropsTheToken(t *testing.T) {
	g := New(newFakeFarm(t), slog.New(slog.DiscardHandler), NewMetrics(prometheus.NewRegistry()), Options{})
	for _, target := range []string{"//evil.com/?token=T&x=1", "/console/../?token=T"} {
		req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1"+target, nil)
		rec := httptest.NewRecorder()
		g.Handler().ServeHTTP(rec, req)
		loc := rec.Header().Get("Location")
		assert.NotContains(t, loc, "token", "%s: answered %d to %q", target, rec.Code, loc)
		assert.NotEmpty(t, loc, "%s: answered %d without a redirect", target, rec.Code)
	}
}
