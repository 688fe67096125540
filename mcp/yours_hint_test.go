package mcp_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// A call without a lease on a device the caller holds says how to pass the lease, to an agent
// and to corral call's user alike ($CORRAL_LEASE, as the stale-lease refusal names it).
func TestYouHoldItNamesCorralLeaseForTheCommandLine(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	c := f.Client("alice")
	serial := f.Devices()[0].Serial
	var got mcp.AcquireResult
	farmtest.Structured(t, farmtest.MustCall(t, c, "acquire_device", map[string]any{"serial": serial}), &got)
	res := farmtest.Call(t, c, "home", map[string]any{"serial": serial})
	require.True(t, res.IsError, "ran without the lease: %s", farmtest.Text(res))
	assert.Contains(t, farmtest.Text(res), "You hold it")
	assert.Contains(t, farmtest.Text(res), "corral call passes $CORRAL_LEASE as lease: export it")
	assert.NotContains(t, farmtest.Text(res), got.Lease.Handle)
}
