package mcp_test

import (
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// release_device {} in a session holding two leases names both ways to pick one, lease or
// serial (docs/tools.md), and serial does pick one.
func TestReleaseOfSeveralLeasesOffersSerialToo(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 2, Quiet: true})
	c := f.ClientWithProtocol("alice", mcpgo.LATEST_LEGACY_PROTOCOL_VERSION) // a revision with sessions
	devs := f.Devices()
	for _, d := range devs {
		var got mcp.AcquireResult
		farmtest.Structured(t, farmtest.MustCall(t, c, "acquire_device", map[string]any{"serial": d.Serial}), &got)
	}
	res := farmtest.Call(t, c, "release_device", map[string]any{})
	require.True(t, res.IsError, "released one of two leases unasked: %s", farmtest.Text(res))
	assert.Contains(t, farmtest.Text(res), "holds 2 leases")
	assert.Contains(t, farmtest.Text(res), "pass lease (the handle acquire_device or select_device gave), or serial, to say which")
	assert.Contains(t, farmtest.Text(farmtest.MustCall(t, c, "release_device", map[string]any{"serial": devs[1].Serial})),
		"Released device "+devs[1].Serial)
}
