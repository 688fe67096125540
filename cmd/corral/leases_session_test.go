package main

import (
	"crypto/rand"
	"regexp"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// corral leases shows each holder with its session's tag, so that the leases of two corral
// runs of one token tell apart; --holder takes one session's holder as listed.
func TestLeasesShowTheHoldersSession(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 2, Quiet: true})
	devs := f.Devices()
	require.Len(t, devs, 2)
	var shown []string
	for _, d := range devs {
		caller := rand.Text()
		c, err := client.NewStreamableHttpClient(f.Gateway().MCPURL, transport.WithHTTPHeaders(map[string]string{mcp.CallerHeader: caller}))
		require.NoError(t, err)
		t.Cleanup(func() { _ = c.Close() })
		require.NoError(t, c.Start(t.Context()))
		init := mcpgo.InitializeRequest{}
		init.Params.ClientInfo = mcpgo.Implementation{Name: "corral-run", Version: "test"}
		_, err = c.Initialize(t.Context(), init)
		require.NoError(t, err)
		farmtest.MustCall(t, c, "acquire_device", map[string]any{"serial": d.Serial})
		shown = append(shown, "anonymous (corral-run) session "+broker.SessionTag(caller))
	}

	var err error
	out := captureStdout(t, func() { err = runLeases(t.Context(), []string{"--nats-url", f.URL, "--log-level", "error"}) })
	require.NoError(t, err, out)
	assert.Regexp(t, row(devs[0].Serial, shown[0]), out)
	assert.Regexp(t, row(devs[1].Serial, shown[1]), out)

	out = captureStdout(t, func() {
		err = runLeases(t.Context(), []string{"--nats-url", f.URL, "--log-level", "error", "--holder", shown[1]})
	})
	require.NoError(t, err, out)
	assert.NotContains(t, out, shown[0])
	assert.Regexp(t, row(devs[1].Serial, shown[1]), out)
	assert.Contains(t, out, "1 lease")
}

// row matches the table's row of serial held by holder.
func row(serial, holder string) string {
	return `(?m)^` + regexp.QuoteMeta(serial) + ` +` + regexp.QuoteMeta(holder) + ` +\d`
}
