package main

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// corral devices forget --node of a node the farm knows nothing of (a typo) is refused, with
// the id it most likely meant: it exited 0 saying the gateways dropped its devices and no
// longer showed it lost, and recorded it forgotten. A node the farm knows is forgotten still
// (TestDevicesForgetRemovesAGoneNodesDevices), forgetting it again too.
func TestDevicesForgetRefusesANodeTheFarmDoesNotKnow(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 1, PhonesPerNode: 1, Quiet: true, Auth: true})
	admin := f.Context(broker.UserName(broker.RoleAdmin, ""))
	for node, hint := range map[string]string{"nope": "", "n1x": " (did you mean n1?)"} {
		code, out, errOut := corralMain(t, "devices", "forget", "--node", node, "--nats-context", admin, "--timeout", "20s")
		assert.Equal(t, 1, code, "%s\n%s", out, errOut)
		assert.Contains(t, errOut, "corral devices: node "+node+": the farm knows no such node (no device of it in corral_devices, "+
			"no rig calibration in corral_calibrations, no event of it in CORRAL_EVENTS), so nothing was forgotten: check the id"+hint+
			"; `corral devices` lists")
		assert.NotContains(t, out, "The gateways drop its devices")
		assert.NotContains(t, out, "has no device")
	}
}
