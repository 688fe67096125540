package broker_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/actors"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/nodes"
	"github.com/corral-farm/corral/nodes/sim"
	"github.com/corral-farm/corral/nodes/tools"
)

// lossFarm is a farm of real parts for the node-loss tests: one nats-server that a test stops
// and starts again on the same port and store, reaping gateways, and real nodes with a
// simulated phone each, all connected as in production (broker.Connect).
type lossFarm struct {
	t    *testing.T
	dir  string
	port int
	ns   *server.Server
	logs *syncBuffer
	log  *slog.Logger

	gateways []*lossGateway
	nodes    map[string]*nodes.Node
	conns    []*nats.Conn
	// route, when set, gives the URL the part named connects to instead of the server's url
	// (a stall link in front of it).
	route func(part, url string) string
}

type lossGateway struct {
	client  *broker.Client
	metrics *prometheus.Registry
	nc      *nats.Conn
}

// syncBuffer collects every part's log lines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// lines are the log lines that hold every one of words.
func (b *syncBuffer) lines(words ...string) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for _, line := range strings.Split(b.buf.String(), "\n") {
		if !slices.ContainsFunc(words, func(w string) bool { return !strings.Contains(line, w) }) {
			out = append(out, line)
		}
	}
	return out
}

func startLossFarm(t *testing.T, gateways int, ids ...string) *lossFarm {
	t.Helper()
	return startRoutedLossFarm(t, gateways, nil, ids...)
}

// startRoutedLossFarm is startLossFarm whose parts connect where route says; it is given the
// server's address (host:port) once the server is up.
func startRoutedLossFarm(t *testing.T, gateways int, route func(addr string) func(part, url string) string, ids ...string) *lossFarm {
	t.Helper()
	f := &lossFarm{t: t, dir: t.TempDir(), logs: &syncBuffer{}, nodes: map[string]*nodes.Node{}}
	f.log = slog.New(slog.NewTextHandler(f.logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	f.start(-1)
	if route != nil {
		f.route = route(f.ns.Addr().String())
	}
	_, port, _ := net.SplitHostPort(f.ns.Addr().String())
	f.port, _ = strconv.Atoi(port)
	t.Cleanup(func() {
		for _, n := range f.nodes {
			n.Kill()
		}
		for _, nc := range f.conns {
			nc.Close()
		}
		f.ns.Shutdown()
		f.ns.WaitForShutdown()
	})
	for _, id := range ids {
		f.startNode(id)
	}
	for i := range gateways {
		nc := f.connect(fmt.Sprintf("gateway-%d", i))
		s, err := broker.EnsureStores(t.Context(), nc, broker.StoreOptions{})
		require.NoError(t, err)
		reg := prometheus.NewRegistry()
		c, err := broker.NewClient(t.Context(), nc, s, broker.ClientOptions{Log: f.log.With("part", fmt.Sprintf("gateway-%d", i)),
			Reap: true, Metrics: broker.NewClientMetrics(reg)})
		require.NoError(t, err)
		f.gateways = append(f.gateways, &lossGateway{client: c, metrics: reg, nc: nc})
	}
	f.waitAlive(ids...)
	return f
}

func (f *lossFarm) start(port int) {
	f.t.Helper()
	ns, err := embedded.Start(embedded.Options{Port: port, StoreDir: f.dir}, slog.New(slog.DiscardHandler))
	require.NoError(f.t, err)
	f.ns = ns
}

func (f *lossFarm) connect(name string) *nats.Conn {
	f.t.Helper()
	url := f.ns.ClientURL()
	if f.route != nil {
		url = f.route(name, url)
	}
	nc, err := broker.Connect(broker.ConnectOptions{URL: url, Name: name}, f.log.With("part", name))
	require.NoError(f.t, err)
	f.conns = append(f.conns, nc)
	return nc
}

// startNode starts a real node with one simulated phone.
func (f *lossFarm) startNode(id string) {
	f.t.Helper()
	nc := f.connect("node-" + id)
	s, err := broker.EnsureStores(f.t.Context(), nc, broker.StoreOptions{CreateOnly: true, Node: true})
	require.NoError(f.t, err)
	n, err := nodes.Start(f.t.Context(), nodes.Config{ID: id, NC: nc, Stores: s, Ops: tools.DefaultOps(),
		Metrics: actors.NewMetrics(prometheus.NewRegistry()), Log: f.log.With("part", "node-"+id)})
	require.NoError(f.t, err)
	n.AddDriver(sim.New(id + "-p1"))
	f.nodes[id] = n
}

// waitAlive waits until every gateway hears every one of ids beat, its phone online.
func (f *lossFarm) waitAlive(ids ...string) {
	f.t.Helper()
	require.Eventually(f.t, func() bool {
		for _, g := range f.gateways {
			for _, id := range ids {
				d, ok := g.client.Device(id + "-p1")
				heard := f.metric(g, "corral_node_up", id) == 1 // a beat, not only the registry's word
				if !slices.Contains(g.client.Nodes(), id) || !heard || !ok || d.State != broker.StateOnline {
					return false
				}
			}
		}
		return true
	}, 20*time.Second, 10*time.Millisecond, "every gateway hears %v", ids)
}

// restart stops the server, keeps it down for outage (the outage is what is tested, not a
// wait), starts it again on the same port and store, and returns when every connection is
// back, with when the last gateway's was.
func (f *lossFarm) restart(outage time.Duration, whileDown func()) time.Time {
	f.t.Helper()
	f.ns.Shutdown()
	f.ns.WaitForShutdown()
	if whileDown != nil {
		whileDown()
	}
	time.Sleep(outage)
	f.start(f.port)
	var back time.Time
	require.Eventually(f.t, func() bool {
		for _, g := range f.gateways {
			if !g.nc.IsConnected() {
				return false
			}
		}
		if back.IsZero() {
			back = time.Now()
		}
		for _, nc := range f.conns {
			if !nc.IsClosed() && !nc.IsConnected() {
				return false
			}
		}
		return true
	}, 20*time.Second, 5*time.Millisecond, "every connection back after the restart")
	return back
}

// losses is corral_node_losses_total{node} of gateway g.
func (f *lossFarm) losses(g *lossGateway, node string) float64 {
	return f.metric(g, "corral_node_losses_total", node)
}

// series counts gateway g's series of metric name for node.
func (f *lossFarm) series(g *lossGateway, name, node string) int {
	f.t.Helper()
	mfs, err := g.metrics.Gather()
	require.NoError(f.t, err)
	n := 0
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			if mf.GetName() == name && slices.ContainsFunc(m.GetLabel(), func(l *dto.LabelPair) bool { return l.GetName() == "node" && l.GetValue() == node }) {
				n++
			}
		}
	}
	return n
}

func (f *lossFarm) metric(g *lossGateway, name, node string) float64 {
	f.t.Helper()
	mfs, err := g.metrics.Gather()
	require.NoError(f.t, err)
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			if slices.ContainsFunc(m.GetLabel(), func(l *dto.LabelPair) bool { return l.GetName() == "node" && l.GetValue() == node }) {
				return m.GetCounter().GetValue() + m.GetGauge().GetValue()
			}
		}
	}
	return 0
}

// recorded counts the events the stream holds on a node's subject (what: lost, down).
func (f *lossFarm) recorded(node, what string) int {
	f.t.Helper()
	js, err := jetstream.New(f.gateways[0].nc)
	require.NoError(f.t, err)
	st, err := js.Stream(f.t.Context(), broker.EventStream)
	require.NoError(f.t, err)
	info, err := st.Info(f.t.Context(), jetstream.WithSubjectFilter(fmt.Sprintf(broker.EventNodeT, node, what)))
	require.NoError(f.t, err)
	n := 0
	for _, c := range info.State.Subjects {
		n += int(c)
	}
	return n
}

// noLossUntil checks, until the deadline, that no gateway declares any of ids lost and no
// node hears it was: the verdict of a wrong loss comes within lostAfter and a check of the
// moment every node could be heard again.
func (f *lossFarm) noLossUntil(deadline time.Time, ids ...string) {
	f.t.Helper()
	for {
		for _, id := range ids {
			for i, g := range f.gateways {
				if n := f.losses(g, id); n != 0 {
					f.t.Fatalf("gateway-%d declared %s lost %v times; log:\n%s", i, id, n, strings.Join(f.logs.lines(`msg="node lost"`), "\n"))
				}
			}
		}
		if lines := f.logs.lines("declared this node lost"); len(lines) > 0 {
			f.t.Fatalf("a node heard the farm declared it lost:\n%s", strings.Join(lines, "\n"))
		}
		if time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond) // sampling a window, not waiting for a condition
	}
	for _, id := range ids {
		require.Zero(f.t, f.recorded(id, "lost"), "a loss of %s recorded", id)
	}
	require.Empty(f.t, f.logs.lines(`msg="node lost"`), "a gateway logged a loss")
}

// A NATS restart of 3.5 s (longer than LostAfter) that cuts every gateway and every node at
// once declares no node lost: the gateways heard nothing because they were cut off
// themselves. Their leases and devices stay as they were.
func TestNATSRestartLosesNoNode(t *testing.T) {
	f := startLossFarm(t, 2, "n1", "n2")
	back := f.restart(broker.LostAfter+time.Second, nil)
	// A wrong verdict comes at the reconnection, or LostAfter after it for a node not heard
	// since; a gateway that cannot read its heartbeats waits up to twice that.
	f.noLossUntil(back.Add(2*broker.LostAfter+time.Second), "n1", "n2")
	f.waitAlive("n1", "n2")
	for _, g := range f.gateways {
		for _, id := range []string{"n1", "n2"} {
			d, _ := g.client.Device(id + "-p1")
			require.Equal(t, broker.StateOnline, d.State, "%s's phone after the restart", id)
		}
	}
}

// A node that died during the NATS outage is still declared lost, once, LostAfter after the
// gateways are back (not at once: its clock starts again then); the node that came back is not.
func TestNodeDeadDuringNATSRestartIsLost(t *testing.T) {
	f := startLossFarm(t, 2, "n1", "n2")
	back := f.restart(broker.LostAfter+time.Second, func() { f.nodes["n2"].Kill() })
	require.Eventually(t, func() bool {
		for _, g := range f.gateways {
			if f.losses(g, "n2") != 1 {
				return false
			}
		}
		return true
	}, 20*time.Second, 5*time.Millisecond, "n2, dead, declared lost by every gateway")
	took := time.Since(back)
	if took < broker.LostAfter-broker.HeartbeatInterval || took > 2*broker.LostAfter+2*time.Second {
		t.Errorf("n2 declared lost %s after the gateways reconnected; want about %s", took, broker.LostAfter)
	}
	require.Eventually(t, func() bool { return f.recorded("n2", "lost") == 1 }, 10*time.Second, 10*time.Millisecond,
		"n2's loss recorded once")
	for _, g := range f.gateways {
		d, _ := g.client.Device("n2-p1")
		require.Eventually(t, func() bool { d, _ = g.client.Device("n2-p1"); return d.State == broker.StateOffline },
			10*time.Second, 10*time.Millisecond, "n2's phone offline: %+v", d)
		require.Zero(t, f.losses(g, "n1"), "n1, back, declared lost")
		require.EqualValues(t, 1, f.metric(g, "corral_node_lost", "n2"), "n2 lost (CorralNodeLost's series)")
		require.Zero(t, f.metric(g, "corral_node_lost", "n1"), "n1 lost (CorralNodeLost's series)")
	}
	require.Zero(t, f.recorded("n1", "lost"), "n1's loss recorded")
}

// A node stopped cleanly is not lost: every gateway marks it down at its down event (log
// "node stopped", corral_node_up 0), counts no loss and records none, however long it stays
// stopped, and does not hold it lost (corral_node_lost 0: CorralNodeLost does not page for a
// node decommissioned cleanly); started again, it is back.
func TestNodeStoppedCleanlyIsNotLost(t *testing.T) {
	f := startLossFarm(t, 2, "n1", "n2")
	f.nodes["n1"].Stop()
	stopped := time.Now()
	delete(f.nodes, "n1")
	require.Eventually(t, func() bool {
		for _, g := range f.gateways {
			if slices.Contains(g.client.Nodes(), "n1") || f.metric(g, "corral_node_up", "n1") != 0 {
				return false
			}
		}
		return len(f.logs.lines("node stopped", "node=n1", "gateway-")) == len(f.gateways)
	}, 20*time.Second, 5*time.Millisecond, "n1 down at every gateway, said once each")
	require.Equal(t, 1, f.recorded("n1", "down"), "n1's down event")
	f.noLossUntil(stopped.Add(2*broker.LostAfter+time.Second), "n1", "n2")
	for _, g := range f.gateways {
		d, _ := g.client.Device("n1-p1")
		require.Equal(t, broker.StateOffline, d.State, "the stopped node's phone")
		require.Contains(t, d.Reason, "shut down", "the stopped node's phone says why it is offline")
		require.Zero(t, f.metric(g, "corral_node_lost", "n1"), "the stopped node is held lost")
		require.Equal(t, 1, f.series(g, "corral_node_lost", "n1"), "the stopped node's corral_node_lost series")
	}

	f.startNode("n1")
	f.waitAlive("n1", "n2")
	for _, g := range f.gateways {
		require.EqualValues(t, 1, f.metric(g, "corral_node_up", "n1"), "n1 up again")
	}
}
