package nodes_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/actors"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/internal/logtest"
	"github.com/corral-farm/corral/nodes"
)

// nodeUsers is an embedded NATS server with Corral's users: a gateway and one user per node
// id, each with the permissions perms gives (broker.PermissionsFor, or an older Corral's).
type nodeUsers struct {
	t       *testing.T
	url     string
	pwFile  string
	metrics *actors.Metrics
	stores  *broker.Stores // the gateway's, once it is made
}

func newNodeUsers(t *testing.T, perms func(r broker.Role, node string) (broker.Permissions, error), ids ...string) *nodeUsers {
	t.Helper()
	var users []embedded.User
	add := func(r broker.Role, node string) {
		p, err := perms(r, node)
		require.NoError(t, err)
		users = append(users, embedded.User{Name: broker.UserName(r, node), Password: "pw", Permissions: embedded.Permissions(p)})
	}
	add(broker.RoleGateway, "")
	for _, id := range ids {
		add(broker.RoleNode, id)
	}
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir(), Users: users}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	u := &nodeUsers{t: t, url: ns.ClientURL(), pwFile: filepath.Join(t.TempDir(), "pw"), metrics: actors.NewMetrics(prometheus.NewRegistry())}
	require.NoError(t, os.WriteFile(u.pwFile, []byte("pw"), 0o600))
	return u
}

// gateway connects as the gateway user, makes the farm's stores and follows the farm.
func (u *nodeUsers) gateway(ctx context.Context) *broker.Client {
	u.t.Helper()
	nc, err := broker.Connect(broker.ConnectOptions{URL: u.url, User: broker.UserName(broker.RoleGateway, ""), PasswordFile: u.pwFile}, slog.New(slog.DiscardHandler))
	require.NoError(u.t, err)
	u.t.Cleanup(nc.Close)
	stores, err := broker.EnsureStores(ctx, nc, broker.StoreOptions{})
	require.NoError(u.t, err)
	u.stores = stores
	gw, err := broker.NewClient(ctx, nc, stores, broker.ClientOptions{Log: slog.New(slog.DiscardHandler)})
	require.NoError(u.t, err)
	require.NoError(u.t, gw.WaitReady(ctx))
	return gw
}

// start starts node id as its own NATS user, as corral node does; its log is kept.
func (u *nodeUsers) start(ctx context.Context, id string) (*nodes.Node, *logtest.Recorder, error) {
	u.t.Helper()
	logs := &logtest.Recorder{}
	log := slog.New(logs)
	nc, err := broker.Connect(broker.ConnectOptions{URL: u.url, User: broker.UserName(broker.RoleNode, id), PasswordFile: u.pwFile}, log)
	require.NoError(u.t, err)
	stores, err := broker.EnsureStores(ctx, nc, broker.StoreOptions{CreateOnly: true, Node: true})
	require.NoError(u.t, err)
	n, err := nodes.Start(ctx, nodes.Config{ID: id, NC: nc, Stores: stores, Metrics: u.metrics, Log: log})
	if err != nil {
		nc.Close()
		return nil, logs, err
	}
	u.t.Cleanup(n.Stop)
	return n, logs, nil
}
