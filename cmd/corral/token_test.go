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

// A token file of two lines is refused saying what the file must hold, by corral mcp-stdio
// and by corral call alike, and neither token shows in the error; one line and its newline
// are the token.
func TestTokenFileMustHoldTheTokenAlone(t *testing.T) {
	dir := t.TempDir()
	two := filepath.Join(dir, "two")
	require.NoError(t, os.WriteFile(two, []byte("first-token\nsecond-token\n"), 0o600))
	for name, run := range map[string]func() error{
		"mcp-stdio": func() error {
			return runMCPStdio(t.Context(), []string{"--gateway", "http://127.0.0.1:1/mcp", "--token-file", two, "--log-level", "error"})
		},
		"call": func() error {
			return runCall(t.Context(), []string{"--gateway", "http://127.0.0.1:1/mcp", "--token-file", two, "--log-level", "error", "list_leases"})
		},
	} {
		err := run()
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), "--token-file "+two+" holds 2 lines: it must hold the token alone, on one line (a trailing newline is fine)", name)
		assert.NotContains(t, err.Error(), "is it up", name)
		assert.NotContains(t, err.Error(), "first-token", name)
		assert.NotContains(t, err.Error(), "second-token", name)
	}

	one := filepath.Join(dir, "one")
	require.NoError(t, os.WriteFile(one, []byte("the-token\r\n"), 0o600))
	h, err := tokenSource{file: &one}.headers()
	require.NoError(t, err)
	assert.Equal(t, "Bearer the-token", h["Authorization"])

	t.Setenv("CORRAL_TOKEN", "a b")
	empty := ""
	_, err = tokenSource{file: &empty}.headers()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "CORRAL_TOKEN holds a space or a control character inside the token")
}
