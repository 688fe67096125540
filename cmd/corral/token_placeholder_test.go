package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// docs/clients.md's stdio configuration pasted as it stands, against a gateway without a
// policy: the bridge says its CORRAL_TOKEN is the docs' placeholder, not that the token holds a
// space at byte 7 (QA). A --token-file holding corral up's <your token> likewise.
func TestBridgeSaysTheTokenIsThePlaceholder(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	gw := f.Gateway().MCPURL

	t.Setenv("CORRAL_TOKEN", "<token, only with an auth policy>")
	var code int
	said := captureOutput(t, func() { code = realMain([]string{"mcp-stdio", "--gateway", gw, "--log-level", "error"}) })
	assert.Equal(t, 1, code, said)
	assert.Contains(t, said, "CORRAL_TOKEN is a placeholder in angle brackets, as docs/clients.md shows one")
	assert.Contains(t, said, `drop the "env" entry`)
	assert.NotContains(t, said, "at byte")

	t.Setenv("CORRAL_TOKEN", "")
	file := filepath.Join(t.TempDir(), "token")
	require.NoError(t, os.WriteFile(file, []byte("<your token>\n"), 0o600))
	said = captureOutput(t, func() {
		code = realMain([]string{"mcp-stdio", "--gateway", gw, "--token-file", file, "--log-level", "error"})
	})
	assert.Equal(t, 1, code, said)
	assert.Contains(t, said, "--token-file "+file+" holds a placeholder in angle brackets (<your token>")
}

// corral up's welcome, with an auth policy, shows the header to paste as it reads: <your
// token>, not \u003cyour token\u003e (json.MarshalIndent escapes HTML).
func TestWelcomeShowsThePlaceholderAsItReads(t *testing.T) {
	said := captureOutput(t, func() {
		printWelcome("127.0.0.1:8420", "nats://127.0.0.1:4222", "/data/nats/admin.json", true, "off", "")
	})
	assert.Contains(t, said, `"Authorization": "Bearer <your token>"`)
	assert.NotContains(t, said, `\u003c`)
	start := strings.Index(said, "{")
	end := strings.LastIndex(said, "}")
	require.True(t, start >= 0 && end > start, said)
	var cfg map[string]any
	require.NoError(t, json.Unmarshal([]byte(said[start:end+1]), &cfg), "the configuration is JSON to paste")
}
