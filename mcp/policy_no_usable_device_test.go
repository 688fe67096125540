package mcp_test

import (
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// bob's tags match none of the farm's three phones: acquire_device {} and select_device {}
// told him "The farm has: no devices at all (is a node running?)", false of a farm with
// devices. They say now that his token may use none, naming his rule's tags and no device.
func TestNoUsableDeviceSaysTheTokenMayUseNone(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 3, Quiet: true})
	pol, err := mcp.ParsePolicy([]byte(leasePolicy), t.TempDir())
	require.NoError(t, err)
	g := mcp.New(f.Gateway().Client, slog.New(slog.DiscardHandler), mcp.NewMetrics(prometheus.NewRegistry()), mcp.Options{Policy: pol})
	t.Cleanup(g.Close)
	hs := httptest.NewServer(g.Handler())
	t.Cleanup(hs.Close)
	bob := tokenClient(t, hs.URL, "bob-agent", leaseBobToken)

	for _, tool := range []string{"acquire_device", "select_device"} {
		text := wantRefused(t, farmtest.Call(t, bob, tool, map[string]any{}), "no device your token may use (its rule's tags: pool-b)")
		assert.NotContains(t, text, "no devices at all", "%s of bob", tool)
		assert.NotContains(t, text, "n1-p", "%s of bob names a device outside his rule", tool)
	}
}
