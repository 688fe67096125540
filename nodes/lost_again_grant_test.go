package nodes

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/actors"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/sim"
)

// A lease granted between two gateways' verdicts on one loss is revoked by the second: its
// caller, asking through the second gateway, was told the node was lost. The node revoked only
// at the first verdict, and the lease held the device until its idle expiry. The second verdict
// comes as the loss's event or as a registry entry written over the node's answer.
func TestSecondLossVerdictRevokesALeaseGrantedSinceTheFirst(t *testing.T) {
	for _, c := range []struct {
		name  string
		entry bool // the second verdict is a registry entry (else the loss's event)
	}{{"event", false}, {"entry", true}} {
		t.Run(c.name, func(t *testing.T) {
			ctx, stores, _ := mirrorStores(t)
			n, _ := startLogged(t, ctx, stores)
			p := sim.New("p1")
			t.Cleanup(func() { _ = p.Close() })
			n.AddDriver(p)
			shown := func() broker.DeviceEntry {
				n.mirror.mu.Lock()
				defer n.mirror.mu.Unlock()
				return n.mirror.shown["p1"]
			}
			require.Eventually(t, func() bool { return shown().State == broker.StateOnline }, 15*time.Second, 5*time.Millisecond, "never online")
			before := shown().Epoch

			n.declaredLost("", nil) // the first gateway's verdict
			require.Eventually(t, func() bool { return shown().Epoch == before+1 }, 15*time.Second, 5*time.Millisecond, "the first verdict never answered")

			answers := make(chan broker.LeaseAnswer, 1)
			n.system.Root.Send(n.sched, actors.AcquireLease{Req: broker.AcquireRequest{V: broker.WireVersion, Serial: "p1",
				Holder: broker.Holder{Principal: "between"}}, Reply: func(a broker.LeaseAnswer) { answers <- a }})
			var granted broker.LeaseAnswer
			select {
			case granted = <-answers:
				require.True(t, granted.OK, "%+v", granted)
			case <-time.After(15 * time.Second):
				t.Fatal("no answer to the lease")
			}
			require.Eventually(t, func() bool { return shown().State == broker.StateLeased }, 15*time.Second, 5*time.Millisecond, "never shown leased")

			if c.entry { // the second gateway wrote offline over the node's answer
				lost := shown()
				lost.State, lost.Reason, lost.Holder, lost.Updated = broker.StateOffline, "node n1 lost: no heartbeat for 2.5s", "", time.Now()
				n.declaredLost(" (its registry entries say so)", &lost)
			} else {
				n.declaredLost("", nil)
			}
			require.Eventually(t, func() bool {
				e := shown()
				return e.State == broker.StateOnline && e.Holder == "" && e.Epoch > granted.Lease.Epoch
			}, 15*time.Second, 5*time.Millisecond, "the lease granted between the verdicts was kept: %+v", shown())
		})
	}
}
