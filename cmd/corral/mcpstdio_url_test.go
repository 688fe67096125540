package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// corral mcp-stdio refuses a --gateway no gateway speaks before it bridges a request, in the
// words corral call uses (gatewayURL): it took ftp://x, and each request then failed at the
// bridge with the client none the wiser why.
func TestMCPStdioRefusesAGatewayURLNoGatewaySpeaks(t *testing.T) {
	for g, want := range map[string]string{
		"ftp://x":     `--gateway "ftp://x": a gateway speaks http or https, not ftp (give http://HOST:PORT/mcp)`,
		"http://[bad": `--gateway "http://[bad" is not a URL: missing ']' in host (give http://HOST:PORT/mcp)`,
		"http:///mcp": `--gateway "http:///mcp" has no host (give http://HOST:PORT/mcp)`,
	} {
		err := runMCPStdio(t.Context(), []string{"--gateway", g, "--log-level", "error"})
		require.Error(t, err, g)
		assert.Equal(t, want, err.Error())
	}
}
