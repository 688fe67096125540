package nodes_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/actors"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/internal/logtest"
	"github.com/corral-farm/corral/nodes"
	"github.com/corral-farm/corral/nodes/sim"
)

// silenceRig is the silence tests' farm: a gateway's client on its own connection to an
// embedded server, and node n1, with a simulated phone per serial, connected through a link
// the test shapes (link: the server's address in, the address the node dials out).
type silenceRig struct {
	ctx    context.Context
	gw     *broker.Client
	gwNC   *nats.Conn
	said   *logtest.Buffer // the node's log
	phones map[string]*sim.Phone
	probes chan *nats.Msg // the node's questions to its callers, as the gateway's connection gets them
}

const silenceNode = "n1"

func startSilenceRig(t *testing.T, link func(server string) string, serials ...string) *silenceRig {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir()}, log)
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	gwNC, err := broker.Connect(broker.ConnectOptions{URL: ns.ClientURL(), Name: "gateway"}, log)
	require.NoError(t, err)
	t.Cleanup(gwNC.Close)
	stores, err := broker.EnsureStores(ctx, gwNC, broker.StoreOptions{})
	require.NoError(t, err)
	gw, err := broker.NewClient(ctx, gwNC, stores, broker.ClientOptions{Log: log, Reap: true})
	require.NoError(t, err)
	require.NoError(t, gw.WaitReady(ctx))

	nodeNC, err := broker.Connect(broker.ConnectOptions{URL: "nats://" + link(ns.Addr().String()), Name: "node-" + silenceNode}, log)
	require.NoError(t, err)
	t.Cleanup(nodeNC.Close)
	nodeStores, err := broker.EnsureStores(ctx, nodeNC, broker.StoreOptions{})
	require.NoError(t, err)
	r := &silenceRig{ctx: ctx, gw: gw, gwNC: gwNC, said: &logtest.Buffer{}, phones: map[string]*sim.Phone{}, probes: make(chan *nats.Msg, 64)}
	n, err := nodes.Start(ctx, nodes.Config{ID: silenceNode, NC: nodeNC, Stores: nodeStores, Metrics: actors.NewMetrics(prometheus.NewRegistry()),
		Log: slog.New(slog.NewTextHandler(r.said, nil))})
	require.NoError(t, err)
	t.Cleanup(n.Stop)
	for _, serial := range serials {
		p := sim.New(serial)
		t.Cleanup(func() { _ = p.Close() })
		r.phones[serial] = p
		n.AddDriver(p)
	}
	for _, serial := range serials {
		farmtest.Eventually(t, 30*time.Second, r.online(serial), "%s online", serial)
	}
	sub, err := gwNC.ChanSubscribe(fmt.Sprintf(broker.ProgressT, silenceNode, "*"), r.probes)
	require.NoError(t, err)
	t.Cleanup(func() { _ = sub.Unsubscribe() })
	require.NoError(t, gwNC.Flush())
	return r
}

// callersAsked counts the node's questions to its tasks' callers since the last count.
func (r *silenceRig) callersAsked() (count int) {
	for len(r.probes) > 0 {
		if m := <-r.probes; strings.Contains(m.Subject, ".c_") {
			count++
		}
	}
	return count
}

// online says whether the gateway's client sees device serial online.
func (r *silenceRig) online(serial string) func() bool {
	return func() bool { d, ok := r.gw.Device(serial); return ok && d.State == broker.StateOnline }
}
