package mcp_test

import (
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// A call whose node is declared lost names the code its node's record of the task will have,
// node_lost, as a node's refusal names its code: "sleep on n1-p1 lost (node_lost): node n1 was
// lost during the call …". It said "node lost" in words only, under no code. A lease call to the
// node once it is lost names it too.
func TestCallToALostNodeNamesNodeLost(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 1, PhonesPerNode: 1, Quiet: true})
	const serial = "n1-p1"
	c := f.Client("alice")
	var held mcp.AcquireResult
	farmtest.Structured(t, farmtest.MustCall(t, c, "acquire_device", map[string]any{"serial": serial}), &held)
	sleeping := farmtest.Go(t, c, "sleep", map[string]any{"serial": serial, "lease": held.Lease.Handle, "seconds": 60})
	farmtest.Eventually(t, 10*time.Second, func() bool {
		d, _ := f.Gateway().Client.Device(serial)
		return d.State == broker.StateBusy && d.Task != nil
	}, "the sleep runs on n1")

	f.KillNode("n1")
	select {
	case a := <-sleeping:
		wantRefused(t, a.Get(t), "sleep on "+serial+" lost (node_lost): node n1 ", "get_task_result",
			"its record tells how it ended", "succeeded or failed if it ended while the node was cut off")
	case <-time.After(30 * time.Second):
		t.Fatal("the caller has not heard of its lost node within 30 s")
	}
	farmtest.Eventually(t, 10*time.Second, func() bool {
		d, _ := f.Gateway().Client.Device(serial)
		return d.State == broker.StateOffline
	}, "n1's device offline")
	wantRefused(t, farmtest.Call(t, c, "release_device", map[string]any{"serial": serial, "lease": held.Lease.Handle}),
		"release_device on "+serial+" lost (node_lost): node n1 is lost")
}
