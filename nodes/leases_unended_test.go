package nodes_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
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

// A node killed (kill -9) while a lease was held leaves its granted event with no end: the
// node, back, records it revoked, with the lease's holder and epoch, whether or not the farm
// declared the node lost meanwhile (which clears the registry's holder and the lease mirror):
// at the restart, or at the farm's verdict, which revoked it and told its holder then.
// It reads its lease events as its own NATS user may. A lease ended once is not ended again at
// the next restart.
func TestLeaseHeldAtACrashIsRevokedAtRestart(t *testing.T) {
	for _, reap := range []bool{false, true} {
		t.Run(map[bool]string{false: "crash", true: "crash declared lost"}[reap], func(t *testing.T) {
			const node, serial = "n1", "n1-p1"
			r := newAuthRig(t, reap)
			first := r.start(node, serial)
			r.waitOnline(serial)
			ans, err := r.gw.Acquire(r.ctx, broker.AcquireRequest{V: broker.WireVersion, Serial: serial, Holder: broker.Holder{Principal: "alice", Client: "ci"}})
			require.NoError(t, err)
			require.True(t, ans.OK, "%+v", ans)
			granted := r.lastEvent(node, serial, "granted", func(e broker.Event) bool { return e.Epoch == ans.Lease.Epoch })
			first.Kill()
			var verdict time.Time // when the farm revoked it and told its holder
			if reap {
				farmtest.Eventually(t, 15*time.Second, func() bool {
					d, ok := r.gw.Device(serial)
					verdict = d.Updated
					return ok && d.State == broker.StateOffline
				}, "%s declared lost", serial)
			}
			assert.Zero(t, r.count(node, serial, broker.LeaseRevoked), "an end before the node came back")

			restarted := time.Now()
			second := r.start(node, serial)
			revoked := r.lastEvent(node, serial, broker.LeaseRevoked, func(broker.Event) bool { return true })
			if reap { // QA: "revoked at" the restart, though the gateway revoked it with node_lost before
				assert.True(t, revoked.At.Equal(verdict), "revoked at %s, not at the verdict %s", revoked.At, verdict)
			} else {
				assert.False(t, revoked.At.Before(restarted), "revoked at %s, before the restart %s", revoked.At, restarted)
			}
			assert.Equal(t, granted.Epoch, revoked.Epoch)
			assert.Equal(t, granted.Holder, revoked.Holder)
			assert.Equal(t, "lease", revoked.Kind)
			assert.Contains(t, revoked.Reason, "node n1 was killed or crashed while the lease was held, and restarted")

			// The next restart finds the lease ended: its up event comes, and no second end. The
			// second start's own up event is published after Start returns: a kill before it
			// would lose it.
			farmtest.Eventually(t, 15*time.Second, func() bool { return r.countSubject(fmt.Sprintf(broker.EventNodeT, node, "up")) == 2 }, "the second start's up event")
			second.Kill()
			r.start(node, serial)
			farmtest.Eventually(t, 15*time.Second, func() bool { return r.countSubject(fmt.Sprintf(broker.EventNodeT, node, "up")) == 3 }, "the third start's up event")
			assert.Equal(t, 1, r.count(node, serial, broker.LeaseRevoked), "the lease was ended twice")
		})
	}
}

// authRig is a NATS server whose users have their roles' permissions, with a gateway's farm
// client; the test starts nodes as their own node users.
type authRig struct {
	t       *testing.T
	ctx     context.Context
	url     string
	pwFile  string
	log     *slog.Logger
	metrics *actors.Metrics
	gw      *broker.Client
	stores  *broker.Stores // the gateway's
}

func newAuthRig(t *testing.T, reap bool) *authRig {
	log := slog.New(slog.DiscardHandler)
	var users []embedded.User
	for _, u := range []struct {
		role broker.Role
		node string
	}{{broker.RoleGateway, ""}, {broker.RoleNode, "n1"}} {
		p, err := broker.PermissionsFor(u.role, u.node)
		require.NoError(t, err)
		users = append(users, embedded.User{Name: broker.UserName(u.role, u.node), Password: "pw", Permissions: embedded.Permissions(p)})
	}
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir(), Users: users}, log)
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	r := &authRig{t: t, ctx: t.Context(), url: ns.ClientURL(), pwFile: filepath.Join(t.TempDir(), "pw"), log: log,
		metrics: actors.NewMetrics(prometheus.NewRegistry())}
	require.NoError(t, os.WriteFile(r.pwFile, []byte("pw"), 0o600))
	nc, err := broker.Connect(broker.ConnectOptions{URL: r.url, User: broker.UserName(broker.RoleGateway, ""), PasswordFile: r.pwFile}, log)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	r.stores, err = broker.EnsureStores(r.ctx, nc, broker.StoreOptions{})
	require.NoError(t, err)
	opts := broker.ClientOptions{Log: log, Reap: reap}
	if !reap {
		opts.LostAfter = time.Hour
	}
	r.gw, err = broker.NewClient(r.ctx, nc, r.stores, opts)
	require.NoError(t, err)
	require.NoError(t, r.gw.WaitReady(r.ctx))
	return r
}

// start starts node id as its node user, with one simulated phone.
func (r *authRig) start(id, serial string) *nodes.Node {
	r.t.Helper()
	nc, err := broker.Connect(broker.ConnectOptions{URL: r.url, User: broker.UserName(broker.RoleNode, id), PasswordFile: r.pwFile}, r.log)
	require.NoError(r.t, err)
	stores, err := broker.EnsureStores(r.ctx, nc, broker.StoreOptions{CreateOnly: true, Node: true}) // as corral node does
	require.NoError(r.t, err)
	n, err := nodes.Start(r.ctx, nodes.Config{ID: id, NC: nc, Stores: stores, Metrics: r.metrics, Log: r.log})
	require.NoError(r.t, err)
	r.t.Cleanup(n.Stop)
	p := sim.New(serial)
	r.t.Cleanup(func() { _ = p.Close() })
	n.AddDriver(p)
	return n
}

func (r *authRig) waitOnline(serial string) {
	r.t.Helper()
	farmtest.Eventually(r.t, 15*time.Second, func() bool {
		d, ok := r.gw.Device(serial)
		return ok && d.State == broker.StateOnline
	}, "%s online", serial)
}

// lastEvent waits until the last lease event what of serial satisfies cond, and returns it.
func (r *authRig) lastEvent(node, serial, what string, cond func(broker.Event) bool) broker.Event {
	r.t.Helper()
	var ev broker.Event
	farmtest.Eventually(r.t, 15*time.Second, func() bool {
		m, err := r.stores.Events.GetLastMsgForSubject(r.ctx, fmt.Sprintf(broker.EventLeaseT, node, broker.Token(serial), what))
		ev = broker.Event{}
		return err == nil && json.Unmarshal(m.Data, &ev) == nil && cond(ev)
	}, "the %s event of %s", what, serial)
	return ev
}

// count is how many lease events what of serial the stream holds.
func (r *authRig) count(node, serial, what string) int {
	return r.countSubject(fmt.Sprintf(broker.EventLeaseT, node, broker.Token(serial), what))
}

func (r *authRig) countSubject(subject string) int {
	r.t.Helper()
	info, err := r.stores.Events.Info(r.ctx, jetstream.WithSubjectFilter(subject))
	require.NoError(r.t, err)
	return int(info.State.Subjects[subject])
}
