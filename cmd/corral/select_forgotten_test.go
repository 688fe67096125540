package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// select_device after the previous selection's node was forgotten says the device is gone and
// nothing is left to do: it said the previous selection "could not be released (no device …
// in the registry …): release_device it (serial … and its lease)", of a device and a lease
// that no longer exist.
func TestSelectDeviceAfterThePreviousNodeWasForgotten(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 2, PhonesPerNode: 1, Quiet: true, Auth: true})
	c := f.Client("hrp")
	farmtest.MustCall(t, c, "select_device", map[string]any{"serial": "n2-p1"})
	f.KillNode("n2")
	admin := f.Context(broker.UserName(broker.RoleAdmin, ""))
	var out, errOut string
	farmtest.Eventually(t, 30*time.Second, func() bool { // until the gateway saw n2 lost and its claim expired
		var code int
		code, out, errOut = corralMain(t, "devices", "forget", "--node", "n2", "--nats-context", admin, "--timeout", "20s")
		return code == 0
	}, "n2 was never forgotten: %s %s", out, errOut)
	require.Contains(t, out, "Removed 1 offline device(s) of node n2")
	farmtest.Eventually(t, 10*time.Second, func() bool {
		_, ok := f.Gateway().Client.Device("n2-p1")
		return !ok
	}, "the gateway still lists n2-p1")

	said := farmtest.Text(farmtest.MustCall(t, c, "select_device", map[string]any{"serial": "n1-p1"}))
	assert.Contains(t, said, "The previous selection n2-p1 is no longer in the farm's registry (its node was forgotten, or no longer serves it): "+
		"no lease of it is left, nothing to release.")
	assert.NotContains(t, said, "could not be released")
	assert.NotContains(t, said, "release_device it")
}
