package mcp_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
)

// release_device {"lease": H} without serial, once H's node was killed and restarted (it
// revoked the leases its killed run held, and the gateways' lease mirror is gone), said only
// "pass serial with it to hear which", and so while it was lost. The lease's granted event
// names its device (by the handle's hash), so the holder hears what became of it, as with
// serial: its node is lost; then, revoked as the node restarted (the device leased again
// since, so the grant is not the device's latest). A handle no grant names is told that the lease is no longer known and that the
// serial is needed for that, never quoting the handle.
func TestReleaseByLeaseAloneAfterItsNodeRestarted(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Nodes: 1, PhonesPerNode: 2, Quiet: true})
	alice := f.Client("alice")
	var held, other mcp.AcquireResult
	farmtest.Structured(t, farmtest.MustCall(t, alice, "acquire_device", map[string]any{"serial": "n1-p1"}), &held)
	farmtest.Structured(t, farmtest.MustCall(t, alice, "acquire_device", map[string]any{"serial": "n1-p2"}), &other)
	// A node records its grants just after it answers: kill it once they are stored.
	nc, err := nats.Connect(f.URL)
	require.NoError(t, err)
	defer nc.Close()
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	events, err := js.Stream(t.Context(), broker.EventStream)
	require.NoError(t, err)
	for _, serial := range []string{"n1-p1", "n1-p2"} {
		farmtest.Eventually(t, 10*time.Second, func() bool {
			_, err := events.GetLastMsgForSubject(t.Context(), fmt.Sprintf(broker.EventLeaseT, "n1", broker.Token(serial), "granted"))
			return err == nil
		}, serial+"'s grant on record")
	}

	f.KillNode("n1")
	farmtest.Eventually(t, 30*time.Second, func() bool {
		d, _ := f.Gateway().Client.Device("n1-p1")
		return d.State == broker.StateOffline
	}, "the killed node's devices offline")
	// While it is lost: what the lease's device says, as with serial.
	wantRefused(t, farmtest.Call(t, alice, "release_device", map[string]any{"lease": other.Lease.Handle, "serial": "n1-p2"}),
		"release_device on n1-p2 lost (node_lost): node n1 is lost", "their leases revoked")
	lost := wantRefused(t, farmtest.Call(t, alice, "release_device", map[string]any{"lease": held.Lease.Handle}),
		"release_device on n1-p1 lost (node_lost): node n1 is lost", "their leases revoked")
	assert.NotContains(t, lost, "pass serial")
	f.StartNode("n1", 2)
	farmtest.Eventually(t, 30*time.Second, func() bool {
		d, ok := f.Gateway().Client.Device("n1-p1")
		return ok && d.State == broker.StateOnline && d.Epoch > held.Lease.Epoch
	}, "n1-p1 back online under the restarted node")
	// Another lease of n1-p1 since: the holder's grant is no longer the device's latest.
	farmtest.MustCall(t, f.Client("bob"), "acquire_device", map[string]any{"serial": "n1-p1"})

	const killed = "was revoked at "
	const why = "(node n1 was killed or crashed while the lease was held, and restarted)"
	wantRefused(t, farmtest.Call(t, alice, "release_device", map[string]any{"lease": other.Lease.Handle, "serial": "n1-p2"}),
		"release_device on n1-p2 refused (stale_lease)", killed, why)
	alone := wantRefused(t, farmtest.Call(t, alice, "release_device", map[string]any{"lease": held.Lease.Handle}),
		"release_device on n1-p1 refused (stale_lease)", killed, why)
	assert.NotContains(t, alone, "pass serial")
	assert.NotContains(t, alone, held.Lease.Handle[len(held.Lease.Handle)-8:])

	unknown := wantRefused(t, farmtest.Call(t, alice, "release_device", map[string]any{"lease": broker.NewLeaseHandle()}),
		"release_device refused (stale_lease): this lease is no longer known: no lease held now has this handle, and no lease grant of the last 24h on record names it",
		"pass serial with the lease, and its device's node says which")
	assert.NotContains(t, unknown, "was revoked")
}
