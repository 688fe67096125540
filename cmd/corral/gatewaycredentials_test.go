package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A password in the --gateway URL is warned of, and neither the errors of a gateway that
// does not answer, answers otherwise, or a URL that is refused, nor the log show it.
func TestGatewayURLPasswordIsWarnedOfAndNeverShown(t *testing.T) {
	const password = "pw-s3cret-Q7"
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := l.Addr().String()
	require.NoError(t, l.Close())
	notAGateway := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(notAGateway.Close)

	for _, c := range []struct{ url, says string }{
		{"http://ops:" + password + "@" + closed + "/mcp", "is it up?"},
		{"ops:" + password + "@" + closed, "is it up?"}, // completed: http://, /mcp
		{strings.Replace(notAGateway.URL, "//", "//ops:"+password+"@", 1) + "/mcp", "answered 404"},
		{"http://ops:" + password + "@127.0.0.1:99999/mcp", "is not a port"},
	} {
		var err error
		said := captureOutput(t, func() { err = runDevices(t.Context(), []string{"--gateway", c.url, "--timeout", "20s"}) })
		require.Error(t, err, c.url)
		assert.Contains(t, err.Error(), c.says, c.url)
		assert.Contains(t, err.Error(), "ops:REDACTED@", c.url)
		assert.NotContains(t, err.Error(), password, "the error shows the password")
		assert.NotContains(t, said, password, "the output shows the password")
		if !strings.Contains(c.says, "port") { // a URL refused is not dialled: nothing to warn of
			assert.Contains(t, said, "corral: warning: the --gateway URL", c.url)
			assert.Contains(t, said, "carries credentials", c.url)
		}
	}
}
