package broker

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker/embedded"
)

// nodeUsersFarm starts a NATS server whose users are a gateway and the nodes nA and nB, with
// the permissions Corral gives them (PermissionsFor), and connects as the user named.
func nodeUsersFarm(t *testing.T) (connect func(user string) *nats.Conn) {
	t.Helper()
	f := startNodeUsersNATS(t)
	return func(user string) *nats.Conn { return f.connect(user, slog.New(slog.DiscardHandler)) }
}

// nodeUsersNATS is nodeUsersFarm's server, which a test may restart on the same port and store.
type nodeUsersNATS struct {
	t    *testing.T
	ns   *server.Server
	opts embedded.Options
	pw   string // the users' password file
}

func startNodeUsersNATS(t *testing.T) *nodeUsersNATS {
	t.Helper()
	f := &nodeUsersNATS{t: t, opts: embedded.Options{Port: -1, StoreDir: t.TempDir()}}
	for _, u := range []struct {
		role Role
		node string
	}{{RoleGateway, ""}, {RoleNode, "nA"}, {RoleNode, "nB"}, {RoleAdmin, ""}} {
		p, err := PermissionsFor(u.role, u.node)
		require.NoError(t, err)
		f.opts.Users = append(f.opts.Users, embedded.User{Name: UserName(u.role, u.node), Password: "pw", Permissions: embedded.Permissions(p)})
	}
	f.start()
	f.opts.Port = f.ns.Addr().(*net.TCPAddr).Port // a restart keeps it
	t.Cleanup(func() { f.ns.Shutdown(); f.ns.WaitForShutdown() })
	f.pw = filepath.Join(t.TempDir(), "pw")
	require.NoError(t, os.WriteFile(f.pw, []byte("pw"), 0o600))
	return f
}

func (f *nodeUsersNATS) start() {
	f.t.Helper()
	ns, err := embedded.Start(f.opts, slog.New(slog.DiscardHandler))
	require.NoError(f.t, err)
	f.ns = ns
}

// restart stops the server and starts it again on the same port and store.
func (f *nodeUsersNATS) restart() {
	f.t.Helper()
	f.ns.Shutdown()
	f.ns.WaitForShutdown()
	f.start()
}

// connect connects as user, logging to log.
func (f *nodeUsersNATS) connect(user string, log *slog.Logger) *nats.Conn {
	f.t.Helper()
	nc, err := Connect(ConnectOptions{URL: f.ns.ClientURL(), User: user, PasswordFile: f.pw}, log)
	require.NoError(f.t, err)
	f.t.Cleanup(nc.Close)
	return nc
}

// A node's NATS user may publish to its own keys, and NATS checks subjects, not headers: a
// rollup there (Nats-Rollup: all) purged every node's entries, leases, claims, calibrations and
// every screenshot. The stores a node writes refuse rollups, whether a node made them (at its
// first start) or an older Corral did with rollups allowed and a gateway's start updated them;
// the other node's entries and screenshot survive.
func TestNodeUserCannotRollUpAStore(t *testing.T) {
	for _, made := range []string{"by a node", "by an older Corral"} {
		t.Run(made, func(t *testing.T) {
			connect := nodeUsersFarm(t)
			ctx := t.Context()
			nB, err := EnsureStores(ctx, connect("node-nB"), StoreOptions{CreateOnly: true, Node: true})
			require.NoError(t, err)
			if made == "by an older Corral" {
				gw := connect("gateway")
				js, err := jetstream.New(gw)
				require.NoError(t, err)
				for _, name := range []string{kvStream(RegistryBucket), kvStream(LeaseBucket), kvStream(NodeBucket), kvStream(CalibrationBucket), objStream(ScreenshotBucket)} {
					st, err := js.Stream(ctx, name)
					require.NoError(t, err)
					cfg := st.CachedInfo().Config
					cfg.AllowRollup = true
					_, err = js.UpdateStream(ctx, cfg)
					require.NoError(t, err, name)
				}
				_, err = EnsureStores(ctx, gw, StoreOptions{})
				require.NoError(t, err)
			}
			putDevice(t, nB, DeviceEntry{Serial: "d1", Node: "nB", State: StateOnline})
			_, err = nB.Leases.Put(ctx, LeaseKey("nB", "d1"), []byte(`{"v":1}`))
			require.NoError(t, err)
			_, err = nB.Nodes.Put(ctx, "nB", []byte(`{"v":1}`))
			require.NoError(t, err)
			_, err = nB.Calibrations.Put(ctx, EpochFloorKey("nB"), []byte("1000000"))
			require.NoError(t, err)
			shot, err := nB.SaveScreenshot(ctx, "t_1", []byte("nB's screen"))
			require.NoError(t, err)

			js, err := jetstream.New(connect("node-nA"))
			require.NoError(t, err)
			for _, subject := range []string{"$KV.corral_devices.nA.zz", "$KV.corral_leases.nA.zz", "$KV.corral_nodes.nA",
				"$KV.corral_calibrations.nA.zz", "$O.corral_screenshots.M.zz", "$O.corral_screenshots.C.zz"} {
				for _, rollup := range []string{"all", "sub"} {
					m := nats.NewMsg(subject)
					m.Header.Set(jetstream.MsgRollup, rollup)
					_, err := js.PublishMsg(ctx, m)
					var api *jetstream.APIError
					if assert.ErrorAs(t, err, &api, "%s with Nats-Rollup: %s", subject, rollup) {
						assert.Contains(t, api.Description, "rollup not permitted", subject)
					}
				}
			}

			// Read back as a gateway reads them (a node's user reads only some of its own).
			gw, err := EnsureStores(ctx, connect("gateway"), StoreOptions{CreateOnly: true})
			require.NoError(t, err)
			_, err = gw.Nodes.Get(ctx, "nB")
			assert.NoError(t, err, "nB's claim")
			_, err = gw.Registry.Get(ctx, RegistryKey("nB", "d1"))
			assert.NoError(t, err, "nB's registry entry")
			_, err = gw.Leases.Get(ctx, LeaseKey("nB", "d1"))
			assert.NoError(t, err, "nB's lease")
			_, err = gw.Calibrations.Get(ctx, EpochFloorKey("nB"))
			assert.NoError(t, err, "nB's epoch floor")
			got, err := gw.Screenshot(ctx, shot)
			assert.NoError(t, err, "nB's screenshot")
			assert.Equal(t, "nB's screen", string(got))
		})
	}
}

// A node's NATS user watches its own registry entries (as a node does at start and after a
// reconnect) by its own watches' consumers (WatchNodeEntries), and no other node's: not by a
// filter naming them, nor by one of the registry's wildcards, nor by a second filter beside its
// own (named in the request's body, where NATS permissions cannot see it). nats.go's KV watch,
// whose consumer has a random name, is refused even of its own keys: a node may delete only
// consumers of its own names.
func TestNodeUserWatchesOnlyItsOwnRegistryEntries(t *testing.T) {
	connect := nodeUsersFarm(t)
	ctx := t.Context()
	gw, err := EnsureStores(ctx, connect("gateway"), StoreOptions{})
	require.NoError(t, err)
	putDevice(t, gw, DeviceEntry{Serial: "a1", Node: "nA", State: StateOnline})
	putDevice(t, gw, DeviceEntry{Serial: "b1", Node: "nB", State: StateLeased, Holder: "alice"})

	nc := connect("node-nA")
	nA, err := EnsureStores(ctx, nc, StoreOptions{CreateOnly: true, Node: true})
	require.NoError(t, err)
	// watch reads what a watch of keys gets until it has all there is, or why it got nothing.
	watch := func(keys ...string) ([]string, error) {
		wctx, stop := watchRefusalOf(ctx, nc, func(subject string) bool { return strings.HasPrefix(subject, "$JS.") })
		defer stop()
		wctx, cancel := context.WithTimeout(wctx, waitLong)
		defer cancel()
		w, err := nA.Registry.WatchFiltered(wctx, slices.Clone(keys)) // it prefixes them in place
		if err != nil {
			if r, ok := context.Cause(wctx).(*RefusedError); ok {
				return nil, r
			}
			return nil, err
		}
		defer func() { _ = w.Stop() }()
		var got []string
		for {
			select {
			case e := <-w.Updates():
				if e == nil {
					return got, nil
				}
				got = append(got, e.Key())
			case <-wctx.Done():
				return got, context.Cause(wctx)
			}
		}
	}

	for _, w := range []NodeWatch{NodeWatchStart, NodeWatchReconnect} { // NodeWatchLost: updates only
		got, err := readNodeWatch(ctx, nA, "nA", w)
		require.NoError(t, err, w)
		assert.Equal(t, []string{RegistryKey("nA", "a1")}, got, w)
	}
	rctx, stop := watchRefusalOf(ctx, nc, func(subject string) bool { return strings.HasPrefix(subject, "$JS.") })
	_, err = nA.WatchNodeEntries(rctx, "nB", NodeWatchStart)
	stop()
	var refused *RefusedError
	if assert.ErrorAs(t, context.Cause(rctx), &refused, "nB's watch as nA: %v", err) {
		assert.Contains(t, refused.Subject, "$JS.API.CONSUMER.DELETE.KV_corral_devices."+NodeConsumer("nB", NodeWatchStart))
	}
	for _, keys := range [][]string{{"nA.*"}, {"nA.>"}, {"nB.*"}, {"nB.>"}, {">"}, {"*"}, {"*.*"}, {"*.>"}, {"nA.*", "nB.*"}, {"nA.*", "*"}} {
		got, err := watch(keys...)
		var refused *RefusedError
		if assert.ErrorAs(t, err, &refused, "a watch of %v", keys) {
			assert.Contains(t, refused.Subject, "$JS.API.CONSUMER.CREATE.KV_corral_devices", keys)
		}
		assert.Empty(t, got, keys)
	}
}

// The stream behind a bucket is the one nats.go's CreateKeyValue makes (what a store made by
// an older Corral has), rollups aside: kvStreamConfig follows nats.go.
func TestKVStreamConfigIsNATSGos(t *testing.T) {
	s := openStores(t)
	ctx := t.Context()
	for _, cfg := range []jetstream.KeyValueConfig{
		{Bucket: "plain", Description: "d", History: 1, Storage: jetstream.FileStorage, Replicas: 1},
		{Bucket: "ttl", History: 1, TTL: 24 * time.Hour, MaxBytes: 1 << 20, Storage: jetstream.FileStorage},
		{Bucket: "short", TTL: 30 * time.Second, Storage: jetstream.MemoryStorage},
	} {
		_, err := s.JS.CreateKeyValue(ctx, cfg)
		require.NoError(t, err)
		st, err := s.JS.Stream(ctx, kvStream(cfg.Bucket))
		require.NoError(t, err)
		want := st.CachedInfo().Config
		for _, rollups := range []bool{true, false} {
			mine := kvStreamConfig(cfg, rollups)
			mine.Name = kvStream(cfg.Bucket + "_mine")
			mine.Subjects = []string{"$KV." + cfg.Bucket + "_mine.>"}
			_ = s.JS.DeleteStream(ctx, mine.Name)
			got, err := s.JS.CreateStream(ctx, mine)
			require.NoError(t, err)
			gotCfg := got.CachedInfo().Config
			gotCfg.Name, gotCfg.Subjects, gotCfg.AllowRollup = want.Name, want.Subjects, want.AllowRollup
			gotCfg.Metadata, want.Metadata = nil, nil // the server's own (its version, the API level)
			assert.Equal(t, want, gotCfg, cfg.Bucket)
			assert.Equal(t, rollups, got.CachedInfo().Config.AllowRollup)
		}
	}
	_, err := s.JS.KeyValue(ctx, "plain_mine")
	assert.False(t, errors.Is(err, jetstream.ErrBucketNotFound), "a bucket of kvStreamConfig's opens as a bucket")
}
