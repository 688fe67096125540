package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A gateway URL that redirects does not get the token carried elsewhere (mcp-go's own client
// follows redirects with its headers: GO-2026-6911).
func TestDialGatewayFollowsNoRedirect(t *testing.T) {
	var leaked atomic.Int64
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			leaked.Add(1)
		}
		http.Error(w, "no", http.StatusTeapot)
	}))
	defer elsewhere.Close()
	redirector := httptest.NewServer(http.RedirectHandler(elsewhere.URL+"/mcp", http.StatusTemporaryRedirect))
	defer redirector.Close()

	file := filepath.Join(t.TempDir(), "token")
	require.NoError(t, os.WriteFile(file, []byte("s3cret-token"), 0o600))
	_, err := tokenSource{file: &file}.dialGateway(t.Context(), redirector.URL+"/mcp", "test")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "follows no redirect")
	assert.NotContains(t, err.Error(), "s3cret-token")
	assert.Zero(t, leaked.Load(), "the token reached the host the gateway redirected to")
}
