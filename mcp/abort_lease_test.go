package mcp_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// abort_task by a lease handle no lease has is refused in release_device's words, never
// echoing the handle (it answered "No task is currently running on the lease's device.");
// a group's handle aborts the tasks running under its members' leases (the nodes know only
// those, so it aborted nothing), and one no group has is refused.
func TestAbortTaskByLeaseNoOneHolds(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 1, PhonesPerNode: 2})
	alice := f.Client("alice")

	for _, handle := range []string{"lease_aaaaaaaaaaaaaaaaaaaaaaaaaa", "group_aaaaaaaaaaaaaaaaaaaaaaaaaa"} {
		for _, all := range []bool{false, true} {
			res := farmtest.Call(t, alice, "abort_task", map[string]any{"lease": handle, "all": all})
			text := wantRefused(t, res)
			assert.NotContains(t, text, handle)
			if strings.HasPrefix(handle, "group_") {
				assert.Contains(t, text, "no lease group has this handle")
			} else {
				assert.Contains(t, text, "no lease held now has this handle")
			}
		}
	}

	grp := acquireGroup(t, alice, map[string]any{"count": 2, "platform": "android"})
	farmtest.MustCall(t, alice, "abort_task", map[string]any{"lease": grp.Handle}) // nothing runs: no error
	sleeping := farmtest.Go(t, alice, "sleep", map[string]any{"serial": "n1-p2", "lease": grp.Handle, "seconds": 30})
	farmtest.Eventually(t, 5*time.Second, func() bool {
		d, _ := f.Gateway().Client.Device("n1-p2")
		return d.State == broker.StateBusy
	}, "the sleep on n1-p2 running")
	text := farmtest.Text(farmtest.MustCall(t, alice, "abort_task", map[string]any{"lease": grp.Handle}))
	assert.Contains(t, text, "Aborted 1 task(s) on the devices of lease group "+grp.ID)
	assert.NotContains(t, text, grp.Handle)
	if res := (<-sleeping).Get(t); !res.IsError || !strings.Contains(farmtest.Text(res), "aborted") {
		t.Fatalf("the sleep under the group's lease: %s", farmtest.Text(res))
	}
}
