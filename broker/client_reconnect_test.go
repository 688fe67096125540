package broker

import (
	"log/slog"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker/embedded"
)

// restartableNATS is an embedded NATS server that a test stops and starts again on the same
// port and store, as an operator restarting it would.
type restartableNATS struct {
	t    *testing.T
	ns   *server.Server
	dir  string
	port int
}

func startRestartableNATS(t *testing.T) *restartableNATS {
	t.Helper()
	r := &restartableNATS{t: t, dir: t.TempDir()}
	r.start(-1)
	_, port, _ := net.SplitHostPort(r.ns.Addr().String())
	r.port, _ = strconv.Atoi(port)
	t.Cleanup(func() { r.ns.Shutdown(); r.ns.WaitForShutdown() })
	return r
}

func (r *restartableNATS) start(port int) {
	r.t.Helper()
	ns, err := embedded.Start(embedded.Options{Port: port, StoreDir: r.dir}, slog.New(slog.DiscardHandler))
	require.NoError(r.t, err)
	r.ns = ns
}

// restart stops the server and starts it again on the same port and store.
func (r *restartableNATS) restart() {
	r.t.Helper()
	r.ns.Shutdown()
	r.ns.WaitForShutdown()
	r.start(r.port)
}

// After NATS restarts (same port, same store), a registry change made after the restart
// reaches the client's cache within a few seconds of its reconnecting: its watch of the
// registry is made again rather than left on a consumer the restarted server no longer has.
func TestClientRegistryWatchSurvivesNATSRestart(t *testing.T) {
	r := startRestartableNATS(t)
	nc, err := Connect(ConnectOptions{URL: r.ns.ClientURL(), Name: "gateway"}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	s, err := EnsureStores(t.Context(), nc, StoreOptions{})
	require.NoError(t, err)
	c := startClient(t, s, ClientOptions{})
	putDevice(t, s, DeviceEntry{Serial: "s1", Node: "n1", State: StateOnline})
	require.Eventually(t, func() bool { d, ok := c.Device("s1"); return ok && d.State == StateOnline }, waitLong, 10*time.Millisecond,
		"s1 online in the client's cache")

	r.restart()
	require.Eventually(t, nc.IsConnected, waitLong, 10*time.Millisecond, "the client's connection is back")
	back := time.Now()
	putDevice(t, s, DeviceEntry{Serial: "s1", Node: "n1", State: StateLeased, Holder: "alice"})
	require.Eventually(t, func() bool { d, ok := c.Device("s1"); return ok && d.State == StateLeased && d.Holder == "alice" },
		5*time.Second, 10*time.Millisecond, "s1 leased by alice in the client's cache after the restart")
	t.Logf("the change reached the cache %v after the reconnection", time.Since(back))
}

// The lease groups' watch is made again after a NATS restart too: a group made through another
// gateway after the restart is listed here within a few seconds, and one deleted there is gone.
func TestClientLeaseGroupsWatchSurvivesNATSRestart(t *testing.T) {
	r := startRestartableNATS(t)
	connect := func(name string) (*Client, *nats.Conn) {
		nc, err := Connect(ConnectOptions{URL: r.ns.ClientURL(), Name: name}, slog.New(slog.DiscardHandler))
		require.NoError(t, err)
		t.Cleanup(nc.Close)
		s, err := EnsureStores(t.Context(), nc, StoreOptions{})
		require.NoError(t, err)
		return startClient(t, s, ClientOptions{}), nc
	}
	gw, gwNC := connect("gateway")
	other, otherNC := connect("other gateway")
	gone, g, _ := testGroup(t)
	require.NoError(t, other.CreateLeaseGroup(t.Context(), gone, g))
	require.Eventually(t, func() bool { gs, err := gw.LeaseGroups(t.Context()); return err == nil && len(gs) == 1 },
		waitLong, 10*time.Millisecond, "the first group listed")

	r.restart()
	require.Eventually(t, func() bool { return gwNC.IsConnected() && otherNC.IsConnected() }, waitLong, 10*time.Millisecond,
		"both connections back")
	handle, g2, _ := testGroup(t)
	require.NoError(t, other.CreateLeaseGroup(t.Context(), handle, g2))
	require.NoError(t, other.DeleteLeaseGroup(t.Context(), gone))
	require.Eventually(t, func() bool {
		gs, err := gw.LeaseGroups(t.Context())
		return err == nil && len(gs) == 1 && gs[0].ID == g2.ID
	}, 5*time.Second, 10*time.Millisecond, "only the group made after the restart listed")
}
