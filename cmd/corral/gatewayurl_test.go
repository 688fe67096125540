package main

import (
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// A --gateway without a scheme (127.0.0.1:PORT, localhost:PORT, as a console's address is
// often copied) failed inside mcp-go ("first path segment in URL cannot contain colon",
// "unsupported protocol scheme \"localhost\""): it gets http:// (and /mcp when it has no path),
// and the user is told, as for a URL without a path. A scheme no gateway speaks is refused.
func TestGatewayURLWithoutASchemeGetsHTTP(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	u, err := url.Parse(f.Gateway().MCPURL)
	require.NoError(t, err)
	_, port, _ := strings.Cut(u.Host, ":")
	for _, g := range []string{u.Host, "localhost:" + port + "/mcp"} {
		var err error
		said := captureOutput(t, func() { err = runDevices(t.Context(), []string{"--gateway", g, "--log-level", "error"}) })
		require.NoError(t, err, "%s: %s", g, said)
		assert.Contains(t, said, "corral: "+g+" has no scheme", g)
		assert.Contains(t, said, "using the gateway's MCP endpoint, http://", g)
		assert.Contains(t, said, f.Devices()[0].Serial, g)
	}

	for g, want := range map[string]string{
		"ftp://x":     `--gateway "ftp://x": a gateway speaks http or https, not ftp (give http://HOST:PORT/mcp)`,
		"http://[bad": `--gateway "http://[bad" is not a URL: missing ']' in host (give http://HOST:PORT/mcp)`,
		"http:///mcp": `--gateway "http:///mcp" has no host (give http://HOST:PORT/mcp)`,
	} {
		var err error
		said := captureOutput(t, func() { err = runDevices(t.Context(), []string{"--gateway", g, "--log-level", "error"}) })
		require.Error(t, err, g)
		assert.Equal(t, want, err.Error())
		assert.NotContains(t, said, "has no", "%s: nothing added to a URL refused", g)
	}
}
