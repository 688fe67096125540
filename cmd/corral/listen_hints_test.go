package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// corral node with its --metrics address taken names the flag to change, as corral up does
// for --http: it said only "bind: address already in use".
func TestNodeMetricsAddressInUseNamesTheFlag(t *testing.T) {
	natsURL, taken := natsAndATakenPort(t)
	err := runNode(t.Context(), []string{"--nats-url", natsURL, "--node-id", "m1", "--sim", "1", "--adb", "off",
		"--usbmuxd", "off", "--metrics", taken, "--log-level", "error"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "address already in use")
	assert.Contains(t, err.Error(), "choose another address with --metrics")
	assert.Contains(t, err.Error(), "another corral node running")
}

// natsAndATakenPort starts a NATS server with JetStream and holds a loopback address, so that
// a metrics listener given it finds it in use.
func natsAndATakenPort(t *testing.T) (natsURL, taken string) {
	t.Helper()
	s := runTestServer(t, &server.Options{Port: -1, JetStream: true, StoreDir: t.TempDir()})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	return s.ClientURL(), ln.Addr().String()
}

// A gateway's refusal of a new session is told in its words: the hint to give the MCP
// endpoint's URL only for an answer that says no endpoint is there (404, 405). A draining
// gateway's 503 ("connect again") got it too, as though the URL were wrong.
func TestGatewayRefusalHintsAtTheURLOnlyForAWrongEndpoint(t *testing.T) {
	notFound := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(notFound.Close)
	draining := &drainMark{}
	draining.on.Store(true)
	drained := httptest.NewServer(draining.refusingNewSessions(http.NotFoundHandler()))
	t.Cleanup(drained.Close)
	const urlHint = "give the gateway's MCP endpoint, e.g. http://127.0.0.1:8420/mcp"

	code, _, errOut := corralMain(t, "devices", "--gateway", drained.URL+"/mcp")
	assert.Equal(t, 1, code, errOut)
	assert.Contains(t, errOut, "answered 503: "+drainRefusal)
	assert.NotContains(t, errOut, urlHint)

	code, _, errOut = corralMain(t, "devices", "--gateway", notFound.URL+"/mcp")
	assert.Equal(t, 1, code, errOut)
	assert.Contains(t, errOut, "answered 404: ")
	assert.Contains(t, errOut, urlHint)
}
