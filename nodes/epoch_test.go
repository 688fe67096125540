package nodes_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/actors"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes"
	"github.com/corral-farm/corral/nodes/sim"
)

// restartRig is a NATS server with JetStream and a gateway's farm client, on which a test
// starts, stops and restarts nodes by hand.
type restartRig struct {
	t       *testing.T
	ctx     context.Context
	url     string
	log     *slog.Logger
	metrics *actors.Metrics
	gwNC    *nats.Conn
	gw      *broker.Client
	stores  *broker.Stores // the gateway's
}

// newRestartRig starts the server and the farm client. With reap, the client declares a silent
// node lost after broker.LostAfter, as a gateway does; without, nobody declares it lost.
func newRestartRig(t *testing.T, reap bool) *restartRig {
	log := slog.New(slog.DiscardHandler)
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir()}, log)
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	nc, err := broker.Connect(broker.ConnectOptions{URL: ns.ClientURL(), Name: "gateway"}, log)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	stores, err := broker.EnsureStores(ctx, nc, broker.StoreOptions{})
	require.NoError(t, err)
	opts := broker.ClientOptions{Log: log, Reap: reap}
	if !reap {
		opts.LostAfter = time.Hour
	}
	gw, err := broker.NewClient(ctx, nc, stores, opts)
	require.NoError(t, err)
	require.NoError(t, gw.WaitReady(ctx))
	return &restartRig{t: t, ctx: ctx, url: ns.ClientURL(), log: log, metrics: actors.NewMetrics(prometheus.NewRegistry()),
		gwNC: nc, gw: gw, stores: stores}
}

// startNode starts node id, on a NATS connection of its own, with one simulated phone.
func (r *restartRig) startNode(id, serial string) *nodes.Node {
	r.t.Helper()
	return r.startNodeWith(r.ctx, id, serial)
}

// startNodeWith is startNode with the context given to nodes.Start.
func (r *restartRig) startNodeWith(ctx context.Context, id, serial string) *nodes.Node {
	r.t.Helper()
	nc, err := broker.Connect(broker.ConnectOptions{URL: r.url, Name: "node-" + id}, r.log)
	require.NoError(r.t, err)
	stores, err := broker.EnsureStores(r.ctx, nc, broker.StoreOptions{})
	require.NoError(r.t, err)
	n, err := nodes.Start(ctx, nodes.Config{ID: id, NC: nc, Stores: stores, Metrics: r.metrics, Log: r.log})
	require.NoError(r.t, err)
	r.t.Cleanup(n.Stop) // a no-op for a node the test stopped or killed
	p := sim.New(serial)
	r.t.Cleanup(func() { _ = p.Close() })
	n.AddDriver(p)
	return n
}

// waitDevice waits until the gateway's client shows serial as cond wants. That is not the
// registry: the client shows a lease granted or released through it before the node writes it
// (broker/client_leaseview.go); a test that needs the registry to know uses waitEntry.
func (r *restartRig) waitDevice(serial, what string, cond func(broker.DeviceEntry) bool) broker.DeviceEntry {
	r.t.Helper()
	var d broker.DeviceEntry
	farmtest.Eventually(r.t, 15*time.Second, func() bool {
		var ok bool
		d, ok = r.gw.Device(serial)
		return ok && cond(d)
	}, "%s: %s", serial, what)
	return d
}

// waitEntry waits until serial's registry entry under node, read from the store (not the
// gateway's view), satisfies cond.
func (r *restartRig) waitEntry(node, serial, what string, cond func(broker.DeviceEntry) bool) broker.DeviceEntry {
	r.t.Helper()
	var d broker.DeviceEntry
	farmtest.Eventually(r.t, 15*time.Second, func() bool {
		e, err := r.stores.Registry.Get(r.ctx, broker.RegistryKey(node, serial))
		if err != nil {
			return false
		}
		d = broker.DeviceEntry{} // a field the entry omits is empty, not the last entry's
		return json.Unmarshal(e.Value(), &d) == nil && cond(d)
	}, "%s: %s", serial, what)
	return d
}

func (r *restartRig) run(serial, lease, holder string) broker.TaskResult {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(r.ctx, 30*time.Second)
	defer cancel()
	res, err := r.gw.Run(ctx, broker.TaskRequest{V: broker.WireVersion, ID: broker.NewTaskID(), Serial: serial, Tool: "get_screen_size",
		Lease: lease, Holder: broker.Holder{Principal: holder}}, nil)
	require.NoError(r.t, err)
	return res
}

func (r *restartRig) acquire(serial, holder string) *broker.Lease {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(r.ctx, 30*time.Second)
	defer cancel()
	ans, err := r.gw.Acquire(ctx, broker.AcquireRequest{V: broker.WireVersion, Serial: serial, Holder: broker.Holder{Principal: holder}})
	require.NoError(r.t, err)
	require.True(r.t, ans.OK, "acquire %s: %+v", serial, ans)
	return ans.Lease
}

func (r *restartRig) release(serial, handle string) broker.LeaseAnswer {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(r.ctx, 30*time.Second)
	defer cancel()
	ans, err := r.gw.Release(ctx, broker.ReleaseRequest{V: broker.WireVersion, Serial: serial, Handle: handle})
	require.NoError(r.t, err)
	return ans
}

// A node that restarts — after a crash, after a crash the farm noticed, or after a clean stop —
// continues its devices' lease epochs from the registry instead of starting them over: the
// device's next grant has an epoch above every epoch granted before, and the lease from before
// the restart is fenced, its handle refused for calls and for release (actors/README.md rule 7).
func TestNodeRestartContinuesEpochsAndFencesOldLease(t *testing.T) {
	for _, c := range []struct {
		name string
		reap bool // a gateway declares the killed node lost before it returns
		stop func(*nodes.Node)
	}{
		{"crash", false, (*nodes.Node).Kill},
		{"crash declared lost", true, (*nodes.Node).Kill},
		{"clean stop", false, (*nodes.Node).Stop},
	} {
		t.Run(c.name, func(t *testing.T) {
			const node, serial = "n1", "n1-p1"
			r := newRestartRig(t, c.reap)
			first := r.startNode(node, serial)
			r.waitDevice(serial, "online", func(d broker.DeviceEntry) bool { return d.State == broker.StateOnline })

			// Calls under implicit leases are grants too: they move the epoch on, so that epochs
			// started over from zero would land well below the lease's.
			for i := range 3 {
				res := r.run(serial, "", fmt.Sprintf("caller-%d", i))
				require.Equal(t, broker.OutcomeSucceeded, res.Outcome, "%+v", res)
			}
			old := r.acquire(serial, "alice")
			require.GreaterOrEqual(t, old.Epoch, uint64(4))
			res := r.run(serial, old.Handle, "alice")
			require.Equal(t, broker.OutcomeSucceeded, res.Outcome, "%+v", res)
			require.Equal(t, old.Epoch, res.LeaseEpoch)
			// The registry knows the epoch before the node goes (a crash loses what is not written;
			// the gateway shows the lease before the registry has it).
			r.waitEntry(node, serial, fmt.Sprintf("leased at epoch %d", old.Epoch), func(d broker.DeviceEntry) bool {
				return d.State == broker.StateLeased && d.Epoch == old.Epoch
			})

			var lost chan *nats.Msg
			if c.reap {
				lost = make(chan *nats.Msg, 1)
				sub, err := r.gwNC.ChanSubscribe(fmt.Sprintf(broker.EventNodeT, node, "lost"), lost)
				require.NoError(t, err)
				defer func() { _ = sub.Unsubscribe() }()
				require.NoError(t, r.gwNC.Flush())
			}
			c.stop(first)
			if c.reap {
				select {
				case <-lost:
				case <-time.After(15 * time.Second):
					t.Fatal("the farm never declared the killed node lost")
				}
				r.waitDevice(serial, "offline", func(d broker.DeviceEntry) bool { return d.State == broker.StateOffline })
			}

			r.startNode(node, serial)
			back := r.waitDevice(serial, "online again", func(d broker.DeviceEntry) bool { return d.State == broker.StateOnline })
			assert.GreaterOrEqual(t, back.Epoch, old.Epoch, "the restarted node shows an epoch below the one granted before")

			// The old lease is fenced: its calls and its release are refused.
			res = r.run(serial, old.Handle, "alice")
			assert.Equal(t, broker.OutcomeRefused, res.Outcome, "%+v", res)
			assert.Equal(t, broker.CodeStaleLease, res.Code, "%+v", res)
			ans := r.release(serial, old.Handle)
			assert.False(t, ans.OK, "the old lease was released after the restart: %+v", ans)
			assert.Equal(t, broker.CodeStaleLease, ans.Code)

			next := r.acquire(serial, "bob")
			assert.Greater(t, next.Epoch, old.Epoch, "the first grant after the restart reuses an epoch from before it")
			res = r.run(serial, old.Handle, "alice")
			assert.Equal(t, broker.OutcomeRefused, res.Outcome, "the old lease ran a call on bob's: %+v", res)
			assert.Equal(t, broker.CodeStaleLease, res.Code, "%+v", res)
			ans = r.release(serial, old.Handle)
			assert.False(t, ans.OK, "the old lease released bob's: %+v", ans)
			res = r.run(serial, next.Handle, "bob")
			require.Equal(t, broker.OutcomeSucceeded, res.Outcome, "%+v", res)
			assert.Equal(t, next.Epoch, res.LeaseEpoch)
		})
	}
}

// A node that crashes right after a grant, before its registry entry has the grant's epoch
// (written at most every 250 ms), must not hand that epoch out again after its restart, nor
// after a second crash just as quick: each start raises the node's epoch floor first.
// The lost write is made certain by putting back the entry from before the grant.
func TestEpochGrantedJustBeforeACrashIsNotReusedAfterRestart(t *testing.T) {
	const node, serial = "n1", "n1-p1"
	r := newRestartRig(t, false)
	n := r.startNode(node, serial)
	r.waitDevice(serial, "online", func(d broker.DeviceEntry) bool { return d.State == broker.StateOnline })
	var granted []uint64
	for round := range 3 {
		// The entry this start wrote: above every epoch granted before it (none in round 0).
		before := r.waitEntry(node, serial, "written by this start", func(d broker.DeviceEntry) bool {
			return d.State == broker.StateOnline && (len(granted) == 0 || d.Epoch > lastOf(granted))
		})
		l := r.acquire(serial, fmt.Sprintf("holder-%d", round))
		for _, g := range granted {
			require.Greater(t, l.Epoch, g, "round %d: the epoch granted after a restart was granted before it", round)
		}
		if round == 0 {
			require.Equal(t, uint64(1), l.Epoch, "a new node's first grant")
		}
		granted = append(granted, l.Epoch)
		n.Kill()
		// The crash lost the entry's write of the grant: the registry still has the epoch before.
		data, err := json.Marshal(before)
		require.NoError(t, err)
		_, err = r.stores.Registry.Put(r.ctx, broker.RegistryKey(node, serial), data)
		require.NoError(t, err)
		n = r.startNode(node, serial)
		r.waitDevice(serial, "online again", func(d broker.DeviceEntry) bool { return d.State == broker.StateOnline })
	}
}

func lastOf(s []uint64) uint64 {
	if len(s) == 0 {
		return 0
	}
	return s[len(s)-1]
}
