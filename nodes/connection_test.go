package nodes_test

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/actors"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/internal/farmtest"
)

// outageRig is a restartRig whose NATS server can be stopped and started again on the same
// port and store, and whose node reaches NATS through a link the test cuts and heals.
type outageRig struct {
	*restartRig
	ns   *server.Server
	dir  string
	port int
	link *farmtest.Link
}

func newOutageRig(t *testing.T) *outageRig {
	log := slog.New(slog.DiscardHandler)
	o := &outageRig{dir: t.TempDir()}
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: o.dir}, log)
	require.NoError(t, err)
	o.ns = ns
	_, port, _ := net.SplitHostPort(ns.Addr().String())
	o.port, _ = strconv.Atoi(port)
	t.Cleanup(func() { o.ns.Shutdown(); o.ns.WaitForShutdown() })
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	nc, err := broker.Connect(broker.ConnectOptions{URL: ns.ClientURL(), Name: "gateway"}, log)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	stores, err := broker.EnsureStores(ctx, nc, broker.StoreOptions{})
	require.NoError(t, err)
	gw, err := broker.NewClient(ctx, nc, stores, broker.ClientOptions{Log: log, Reap: true})
	require.NoError(t, err)
	require.NoError(t, gw.WaitReady(ctx))
	o.link = farmtest.StartLink(t, ns.Addr().String())
	o.restartRig = &restartRig{t: t, ctx: ctx, url: "nats://" + o.link.Addr(), log: log,
		metrics: actors.NewMetrics(prometheus.NewRegistry()), gwNC: nc, gw: gw, stores: stores}
	return o
}

// restartNATS stops the server and starts it again on the same port and store.
func (o *outageRig) restartNATS() {
	o.t.Helper()
	o.ns.Shutdown()
	o.ns.WaitForShutdown()
	ns, err := embedded.Start(embedded.Options{Port: o.port, StoreDir: o.dir}, o.log)
	require.NoError(o.t, err)
	o.ns = ns
}

// A node cut off from NATS for longer than the farm waits is declared lost while it cannot
// hear the loss event. When it is back it finds so in the registry and does what the event
// would have made it do (SCHEDULER.md rule 7): its devices show online again, not offline for
// good while it serves them, and the leases the farm told their holders were gone are revoked
// (fenced). A node connected when the event comes hears it, as before.
func TestNodeDeclaredLostWhileCutOffServesAgain(t *testing.T) {
	for _, c := range []struct {
		name   string
		outage func(o *outageRig, declared <-chan *nats.Msg)
	}{
		{"link cut", func(o *outageRig, declared <-chan *nats.Msg) {
			o.link.Cut()
			waitLost(o.t, declared)
			o.link.Heal()
		}},
		{"NATS restarted", func(o *outageRig, _ <-chan *nats.Msg) {
			o.link.Cut() // the node comes back after the farm declared it lost, as in QA's 4 of 5
			o.restartNATS()
			o.waitEntry("n1", "n1-p1", "declared lost", broker.DeclaredLost)
			o.link.Heal()
		}},
		{"connected when declared lost", func(o *outageRig, declared <-chan *nats.Msg) {
			ev := fmt.Sprintf(`{"v":1,"kind":"node","node":"n1","what":"lost","at":%q}`, time.Now().Format(time.RFC3339Nano))
			require.NoError(o.t, o.gwNC.Publish(fmt.Sprintf(broker.EventNodeT, "n1", "lost"), []byte(ev)))
			waitLost(o.t, declared)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			const node, serial = "n1", "n1-p1"
			o := newOutageRig(t)
			o.startNode(node, serial)
			o.waitDevice(serial, "online", func(d broker.DeviceEntry) bool { return d.State == broker.StateOnline })
			old := o.acquire(serial, "alice")
			// The registry, not the gateway's view: the lease must be written before the outage.
			o.waitEntry(node, serial, "leased", func(d broker.DeviceEntry) bool { return d.State == broker.StateLeased })

			declared := make(chan *nats.Msg, 4)
			sub, err := o.gwNC.ChanSubscribe(fmt.Sprintf(broker.EventNodeT, node, "lost"), declared)
			require.NoError(t, err)
			defer func() { _ = sub.Unsubscribe() }()
			require.NoError(t, o.gwNC.Flush())

			c.outage(o, declared)

			back := o.waitEntry(node, serial, "online again, its lease revoked", func(d broker.DeviceEntry) bool {
				return d.State == broker.StateOnline && d.Holder == ""
			})
			assert.Greater(t, back.Epoch, old.Epoch, "the epoch did not move on: the old lease is not fenced")
			// Calls go by the gateway's view, which follows the registry a moment later (a loaded
			// machine: hundreds of ms); refused offline until then.
			o.waitDevice(serial, "online again in the gateway's view", func(d broker.DeviceEntry) bool {
				return d.State == broker.StateOnline && d.Epoch >= back.Epoch
			})
			res := o.run(serial, old.Handle, "alice")
			assert.Equal(t, broker.OutcomeRefused, res.Outcome, "the lease the farm declared gone still runs calls: %+v", res)
			assert.Equal(t, broker.CodeStaleLease, res.Code, "%+v", res)
			next := o.acquire(serial, "bob")
			assert.Greater(t, next.Epoch, old.Epoch)
			res = o.run(serial, next.Handle, "bob")
			assert.Equal(t, broker.OutcomeSucceeded, res.Outcome, "%+v", res)
		})
	}
}

func waitLost(t *testing.T, declared <-chan *nats.Msg) {
	t.Helper()
	select {
	case <-declared:
	case <-time.After(15 * time.Second):
		t.Fatal("the farm never declared the node lost")
	}
}
