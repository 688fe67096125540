package nodes_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/sim"
)

// A node cut off from NATS for longer than the loss window, alive all along, is declared
// lost; once its link heals, the gateway's view (its registry cache, not only the KV entries)
// shows its phones online again within seconds (docs/operations.md, Node lost). So it does
// when a second gateway's verdict on the same loss comes after the node has shown its phones
// again: gateways decide apart (each sweeps its lost nodes one after another, writing their
// devices offline), and one that reached this node after the node was back wrote offline over
// the node's entries. The node, told within LostAfter of the first verdict, revoked nothing
// more and wrote nothing, and the phones stayed offline while it served them (a NATS restart
// with 453856b's link check off did this, gateway-0 writing 30 ms after the node showed its
// phones: offline 25 s and more, until their state changed).
func TestLostNodesPhonesOnlineInTheGatewaysViewAfterTheHeal(t *testing.T) {
	for _, c := range []struct {
		name          string
		secondVerdict bool
	}{
		{"link cut", false},
		{"a second gateway's verdict after the heal", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			const node = "n1"
			serials := []string{"n1-p1", "n1-p2"}
			o := newOutageRig(t)
			n := o.startNode(node, serials[0])
			p := sim.New(serials[1])
			t.Cleanup(func() { _ = p.Close() })
			n.AddDriver(p)
			for _, s := range serials {
				o.waitDevice(s, "online", func(d broker.DeviceEntry) bool { return d.State == broker.StateOnline })
			}
			declared := make(chan *nats.Msg, 4)
			sub, err := o.gwNC.ChanSubscribe(fmt.Sprintf(broker.EventNodeT, node, "lost"), declared)
			require.NoError(t, err)
			defer func() { _ = sub.Unsubscribe() }()
			require.NoError(t, o.gwNC.Flush())

			o.link.Cut()
			var verdict *nats.Msg
			select {
			case verdict = <-declared:
			case <-time.After(15 * time.Second):
				t.Fatal("the farm never declared the node lost")
			}
			for _, s := range serials {
				o.waitDevice(s, "offline (node lost)", broker.DeclaredLost)
			}
			o.link.Heal()
			o.waitOnline(serials, "after the heal")
			if c.secondVerdict {
				o.lateVerdict(node, serials, verdict)
				o.waitOnline(serials, "after a second gateway's verdict")
			}
		})
	}
}

// waitOnline waits until the gateway's view shows every one of serials online.
func (o *outageRig) waitOnline(serials []string, when string) {
	o.t.Helper()
	start := time.Now()
	farmtest.Eventually(o.t, 10*time.Second, func() bool {
		for _, s := range serials {
			if d, ok := o.gw.Device(s); !ok || d.State != broker.StateOnline {
				return false
			}
		}
		return true
	}, "the gateway shows %v online %s: %+v", serials, when, o.gw.Devices())
	o.t.Logf("online in the gateway's view %s %s", time.Since(start).Round(time.Millisecond), when)
}

// lateVerdict does what a second reaping gateway does when its verdict on node comes late
// (broker nodeLost): it writes each entry offline over the revision it holds, the node's own,
// then records the loss under the first verdict's id (the stream keeps one; the node hears it).
func (o *outageRig) lateVerdict(node string, serials []string, first *nats.Msg) {
	o.t.Helper()
	for _, s := range serials {
		kve, err := o.stores.Registry.Get(o.ctx, broker.RegistryKey(node, s))
		require.NoError(o.t, err)
		var e broker.DeviceEntry
		require.NoError(o.t, json.Unmarshal(kve.Value(), &e))
		e.State, e.Reason, e.Holder, e.Updated = broker.StateOffline, fmt.Sprintf("node %s lost: no heartbeat for %s", node, broker.LostAfter), "", time.Now()
		require.True(o.t, broker.DeclaredLost(e))
		data, err := json.Marshal(e)
		require.NoError(o.t, err)
		_, err = o.stores.Registry.Update(o.ctx, kve.Key(), data, kve.Revision())
		require.NoError(o.t, err)
	}
	for _, s := range serials {
		o.waitDevice(s, "offline (the second verdict)", broker.DeclaredLost)
	}
	msg := nats.NewMsg(first.Subject)
	msg.Data, msg.Header = first.Data, first.Header
	require.NotEmpty(o.t, msg.Header.Get(nats.MsgIdHdr), "the gateway's loss event has an id")
	_, err := o.stores.JS.PublishMsg(o.ctx, msg)
	require.NoError(o.t, err)
}
