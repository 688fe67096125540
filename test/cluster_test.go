package test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/corral-farm/corral/actors"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/mcp"
	"github.com/corral-farm/corral/nodes"
	"github.com/corral-farm/corral/nodes/sim"
)

// natsCluster is a NATS cluster of in-process servers with JetStream, on loopback.
type natsCluster struct {
	servers map[string]*server.Server // by server name
	url     string                    // every member's client URL, comma-separated
}

// startCluster starts n clustered servers, each with its own JetStream store, and waits until
// JetStream answers. They stop when the test ends.
func startCluster(t *testing.T, n int, log *slog.Logger) *natsCluster {
	t.Helper()
	routes := make([]string, n)
	ports := make([]int, n)
	for i := range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ports[i] = l.Addr().(*net.TCPAddr).Port
		routes[i] = fmt.Sprintf("nats-route://127.0.0.1:%d", ports[i])
		_ = l.Close()
	}
	c := &natsCluster{servers: map[string]*server.Server{}}
	var urls []string
	for i := range n {
		name := fmt.Sprintf("nats-%d", i+1)
		ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir(), Name: name,
			Cluster: &embedded.ClusterOptions{Name: "corral-test", Port: ports[i], Routes: routes}}, log)
		if err != nil {
			t.Fatal(err)
		}
		c.servers[name] = ns
		urls = append(urls, ns.ClientURL())
		t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	}
	c.url = strings.Join(urls, ",")
	nc := clusterConn(t, c.url, "probe", log)
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	farmtest.Eventually(t, 30*time.Second, func() bool {
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		_, err := js.AccountInfo(ctx)
		return err == nil
	}, "JetStream of a %d-server cluster ready", n)
	return c
}

func clusterConn(t *testing.T, url, name string, log *slog.Logger) *nats.Conn {
	t.Helper()
	nc, err := broker.Connect(broker.ConnectOptions{URL: url, Name: name}, log)
	if err != nil {
		t.Fatal(err)
	}
	return nc
}

// callStat is one call of the traffic.
type callStat struct {
	worker string
	at     time.Time // when it ended
	ok     bool
	err    string
}

// Gateways and nodes on a 3-server NATS cluster with R3 stores survive the loss of a server:
// calls resume after a bounded blip, and no lease, task record or registry entry is lost.
func TestClusteredNATSSurvivesAServerLoss(t *testing.T) {
	var quiet atomic.Bool
	log := slog.New(slog.NewTextHandler(testLog{t, &quiet}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	defer quiet.Store(true)
	c := startCluster(t, 3, log)

	// `corral node --nats-replicas 3` creates the stores with 3 replicas.
	node0 := exec.Command(corral(t), "node", "--nats-url", c.url, "--nats-replicas", "3", "--node-id", "n0", "--sim", "0",
		"--adb", "off", "--metrics", "", "--log-level", "warn")
	node0.Stderr = testLog{t, &quiet}
	if err := node0.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = node0.Process.Kill(); _ = node0.Wait() }()
	admin := clusterConn(t, c.url, "admin", log)
	defer admin.Close()
	beats, err := admin.SubscribeSync(fmt.Sprintf(broker.HeartbeatT, "n0"))
	if err != nil {
		t.Fatal(err)
	}
	js, err := jetstream.New(admin)
	if err != nil {
		t.Fatal(err)
	}
	// A node makes no sessions store (its NATS user may not): the gateway makes it, below.
	nodeStreams := []string{broker.EventStream, "KV_" + broker.RegistryBucket, "KV_" + broker.LeaseBucket}
	streams := append(slices.Clone(nodeStreams), "KV_"+broker.SessionBucket)
	info := func(name string) *jetstream.StreamInfo {
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
		defer cancel()
		s, err := js.Stream(ctx, name)
		if err != nil {
			return nil
		}
		i, err := s.Info(ctx)
		if err != nil {
			return nil
		}
		return i
	}
	farmtest.Eventually(t, 60*time.Second, func() bool {
		for _, name := range nodeStreams {
			if i := info(name); i == nil || i.Config.Replicas != 3 {
				return false
			}
		}
		return true
	}, "corral node --nats-replicas 3 made R3 stores")
	if _, err := beats.NextMsg(60 * time.Second); err != nil { // it started: the stores are done with
		t.Fatalf("corral node n0 never beat: %v", err)
	}
	_ = node0.Process.Signal(syscall.SIGINT)
	_ = node0.Wait()

	// Two nodes and a gateway, every one with every server's URL; they ask for no replicas
	// (0), so they keep the R3 stores as they are.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	metrics := actors.NewMetrics(prometheus.NewRegistry())
	var running []*nodes.Node
	defer func() {
		for _, n := range running {
			n.Stop()
		}
	}()
	conns := map[string]*nats.Conn{}
	for _, id := range []string{"n1", "n2"} {
		nc := clusterConn(t, c.url, "node-"+id, log)
		stores, err := broker.EnsureStores(ctx, nc, broker.StoreOptions{})
		if err != nil {
			t.Fatal(err)
		}
		n, err := nodes.Start(ctx, nodes.Config{ID: id, NC: nc, Stores: stores, Metrics: metrics, Log: log})
		if err != nil {
			t.Fatal(err)
		}
		running = append(running, n)
		conns["node "+id] = nc
		for k := 1; k <= 3; k++ {
			n.AddDriver(sim.New(fmt.Sprintf("%s-p%d", id, k)))
		}
	}
	gnc := clusterConn(t, c.url, "gateway", log)
	defer gnc.Close()
	conns["gateway"] = gnc
	stores, err := broker.EnsureStores(ctx, gnc, broker.StoreOptions{Replicas: 3}) // as corral gateway --nats-replicas 3; what the checks below read
	if err != nil {
		t.Fatal(err)
	}
	gw, mcpURL := serveGateway(t, gnc, log, mcp.Options{})
	farmtest.Eventually(t, 20*time.Second, func() bool {
		n := 0
		for _, d := range gw.Devices() {
			if d.State == broker.StateOnline {
				n++
			}
		}
		return n == 6
	}, "six devices online")
	for _, name := range streams {
		if i := info(name); i == nil || i.Config.Replicas != 3 {
			t.Fatalf("stream %s lost its replicas when the farm started: %+v", name, i)
		}
	}

	// Two leases held through the loss.
	leases := map[string]*broker.Lease{}
	for serial, holder := range map[string]string{"n1-p1": "lessee-1", "n2-p1": "lessee-2"} {
		ans, err := gw.Acquire(ctx, broker.AcquireRequest{V: broker.WireVersion, Serial: serial, Holder: broker.Holder{Principal: holder}})
		if err != nil || !ans.OK {
			t.Fatalf("acquire %s: %+v %v", serial, ans, err)
		}
		leases[serial] = ans.Lease
	}

	// Traffic: calls under the leases, implicit-lease calls, tasks that take a while, and an
	// MCP client through the gateway's HTTP front door.
	var (
		mu        sync.Mutex
		stats     []callStat
		succeeded []string // task ids whose caller saw them succeed
	)
	record := func(worker string, ok bool, id string, err string) {
		mu.Lock()
		defer mu.Unlock()
		stats = append(stats, callStat{worker: worker, at: time.Now(), ok: ok, err: err})
		if ok && id != "" {
			succeeded = append(succeeded, id)
		}
	}
	run := func(worker, serial, tool, args, lease string) {
		cctx, ccancel := context.WithTimeout(ctx, 2*time.Second)
		defer ccancel()
		id := broker.NewTaskID()
		res, err := gw.Run(cctx, broker.TaskRequest{V: broker.WireVersion, ID: id, Serial: serial, Tool: tool, Args: json.RawMessage(args),
			Lease: lease, Holder: broker.Holder{Principal: worker}}, nil)
		switch {
		case err != nil:
			record(worker, false, "", err.Error())
		case res.Outcome != broker.OutcomeSucceeded:
			record(worker, false, "", res.Outcome+": "+res.Error)
		default:
			record(worker, true, id, "")
		}
	}
	mc := mcpClient(ctx, t, mcpURL, "cluster")
	workers := map[string]func(){
		"lessee-1": func() { run("lessee-1", "n1-p1", "tap_xy", `{"x":0.5,"y":0.5}`, leases["n1-p1"].Handle) },
		"lessee-2": func() { run("lessee-2", "n2-p1", "tap_xy", `{"x":0.25,"y":0.75}`, leases["n2-p1"].Handle) },
		"sleeper":  func() { run("sleeper", "n1-p2", "sleep_ms", `{"milliseconds":300}`, "") },
		"implicit": func() { run("implicit", "n2-p2", "get_screen_size", `{}`, "") },
		"mcp": func() {
			cctx, ccancel := context.WithTimeout(ctx, 2*time.Second)
			defer ccancel()
			req := mcpgo.CallToolRequest{}
			req.Params.Name, req.Params.Arguments = "tap_xy", map[string]any{"serial": "n1-p3", "x": 0.5, "y": 0.5}
			res, err := mc.CallTool(cctx, req)
			switch {
			case err != nil:
				record("mcp", false, "", err.Error())
			case res.IsError:
				record("mcp", false, "", farmtest.Text(res))
			default:
				record("mcp", true, "", "")
			}
		},
	}
	// flowing says whether every worker has made n successful calls since its last failure.
	flowing := func(n int) bool {
		mu.Lock()
		defer mu.Unlock()
		okSince := map[string]int{}
		for _, s := range stats {
			if s.ok {
				okSince[s.worker]++
			} else {
				okSince[s.worker] = 0
			}
		}
		for worker := range workers {
			if okSince[worker] < n {
				return false
			}
		}
		return true
	}
	tctx, stopTraffic := context.WithCancel(ctx)
	var traffic sync.WaitGroup
	for _, w := range workers {
		traffic.Go(func() {
			for tctx.Err() == nil {
				w()
			}
		})
	}
	farmtest.Eventually(t, 30*time.Second, func() bool { return flowing(5) }, "every worker's calls succeeding before the loss")

	before := registrySnapshot(t, stores)
	// The server to stop: the gateway's, made the leader of every stream and bucket first
	// (a leader step-down that prefers it), so that the loss hits the gateway's connection and
	// every JetStream leader at once.
	leader := gnc.ConnectedServerName()
	victim := c.servers[leader]
	if victim == nil {
		t.Fatalf("the gateway is connected to %q, not one of %v", leader, slices.Sorted(maps.Keys(c.servers)))
	}
	leads := func() []string {
		var led []string
		for _, name := range streams {
			if i := info(name); i != nil && i.Cluster != nil && i.Cluster.Leader == leader {
				led = append(led, name)
			}
		}
		return led
	}
	farmtest.Eventually(t, 20*time.Second, func() bool {
		led := leads()
		for _, name := range streams {
			if slices.Contains(led, name) {
				continue
			}
			req := fmt.Sprintf(`{"placement":{"preferred":%q}}`, leader)
			_, _ = admin.Request("$JS.API.STREAM.LEADER.STEPDOWN."+name, []byte(req), 2*time.Second)
		}
		return len(led) == len(streams)
	}, "%s leading every stream", leader)
	led := leads()
	var onVictim []string
	for who, nc := range conns {
		if nc.ConnectedServerName() == leader {
			onVictim = append(onVictim, who)
		}
	}
	sort.Strings(onVictim)
	stopped := time.Now()
	victim.Shutdown()
	victim.WaitForShutdown()
	t.Logf("stopped %s, leader of %v; connected to it: %v", leader, led, onVictim)
	farmtest.Eventually(t, 30*time.Second, func() bool {
		i := info(broker.EventStream)
		return i != nil && i.Cluster != nil && i.Cluster.Leader != "" && i.Cluster.Leader != leader
	}, "a new leader of %s", broker.EventStream)
	elected := time.Since(stopped)

	// Traffic until the blip's limit has passed (a call failing later is an error) and every
	// worker has made 5 calls since its last failure; a worker that does not by 20 s more is
	// reported below.
	const maxBlip = 8 * time.Second
	for giveUp := stopped.Add(maxBlip + 20*time.Second); time.Now().Before(giveUp); time.Sleep(50 * time.Millisecond) {
		if time.Since(stopped) > maxBlip && flowing(5) {
			break
		}
	}
	stopTraffic()
	traffic.Wait()

	// The blip: for each worker, from the stop to its first success after its last failure. No
	// call may fail long before the stop, nor later than the blip allows.
	mu.Lock()
	calls := slices.Clone(stats)
	ids := slices.Clone(succeeded)
	mu.Unlock()
	var blip time.Duration
	failures := 0
	for worker := range workers {
		lastFail := stopped
		for _, s := range calls {
			if s.worker != worker || s.ok {
				continue
			}
			failures++
			if s.at.Before(stopped.Add(-time.Second)) || s.at.After(stopped.Add(maxBlip)) {
				t.Fatalf("worker %s: a call failed %s from the stop, outside the blip: %s", worker, s.at.Sub(stopped), s.err)
			}
			if s.at.After(lastFail) {
				lastFail = s.at
			}
		}
		var resumed time.Time
		okAfter := 0
		for _, s := range calls {
			if s.worker == worker && s.ok && s.at.After(lastFail) {
				okAfter++
				if resumed.IsZero() {
					resumed = s.at
				}
			}
		}
		if okAfter < 5 {
			t.Fatalf("worker %s: %d successful calls after %s stopped and its calls failed", worker, okAfter, leader)
		}
		blip = max(blip, resumed.Sub(stopped))
	}
	t.Logf("%d calls, %d failed; blip (stop to every caller's next success) %s; new %s leader after %s",
		len(calls), failures, blip.Round(time.Millisecond), broker.EventStream, elected.Round(time.Millisecond))
	if blip > maxBlip {
		t.Fatalf("calls resumed %s after the server stopped; at most %s allowed", blip, maxBlip)
	}

	// No lease lost: the nodes hold them, the KV mirrors them, and their holders' calls work.
	held, err := gw.Leases(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for serial, l := range leases {
		i := slices.IndexFunc(held, func(h broker.Lease) bool { return h.Serial == serial })
		if i < 0 || held[i].Epoch != l.Epoch || held[i].Holder != l.Holder {
			t.Fatalf("lease of %s lost or changed: had %+v, now %+v", serial, l, held)
		}
		farmtest.Eventually(t, 10*time.Second, func() bool {
			e, err := stores.Leases.Get(ctx, broker.LeaseKey(l.Node, serial))
			var m broker.Lease
			return err == nil && json.Unmarshal(e.Value(), &m) == nil && m.Epoch == l.Epoch && m.Holder == l.Holder
		}, "the lease of %s in %s", serial, broker.LeaseBucket)
		res, err := gw.Run(ctx, broker.TaskRequest{V: broker.WireVersion, ID: broker.NewTaskID(), Serial: serial, Tool: "get_screen_size",
			Lease: l.Handle, Holder: l.Holder}, nil)
		if err != nil || res.Outcome != broker.OutcomeSucceeded {
			t.Fatalf("a call under the lease of %s after the loss: %+v %v", serial, res, err)
		}
	}

	// No task record lost: every task a caller saw succeed has its record in the stream.
	missing := map[string]bool{}
	for _, id := range ids {
		missing[id] = true
	}
	farmtest.Eventually(t, 30*time.Second, func() bool {
		for id := range missing {
			rctx, rcancel := context.WithTimeout(ctx, 2*time.Second)
			_, err := stores.Events.GetLastMsgForSubject(rctx, fmt.Sprintf(broker.EventTaskT, "*", id))
			rcancel()
			if err == nil {
				delete(missing, id)
			}
		}
		return len(missing) == 0
	}, "records of the %d succeeded tasks (%d missing)", len(ids), len(missing))

	// No registry entry lost, and none of the nodes was taken for lost.
	after := registrySnapshot(t, stores)
	for serial, d := range before {
		a, ok := after[serial]
		if !ok || a.Node != d.Node || a.State == broker.StateOffline || a.State == broker.StateUnhealthy {
			t.Fatalf("registry entry of %s: before %+v, after %+v", serial, d, a)
		}
	}
	if nodes := gw.Nodes(); !slices.Contains(nodes, "n1") || !slices.Contains(nodes, "n2") {
		t.Fatalf("nodes alive after the loss: %v", nodes)
	}
	for _, name := range streams {
		if i := info(name); i == nil || i.Config.Replicas != 3 || i.Cluster == nil || i.Cluster.Leader == "" {
			t.Fatalf("stream %s after the loss: %+v", name, i)
		}
	}
	t.Logf("%d task records, %d registry entries and %d leases intact", len(ids), len(after), len(leases))
}

// registrySnapshot reads the registry bucket itself (not a cache), by serial.
func registrySnapshot(t *testing.T, stores *broker.Stores) map[string]broker.DeviceEntry {
	t.Helper()
	out := map[string]broker.DeviceEntry{}
	farmtest.Eventually(t, 10*time.Second, func() bool {
		ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
		defer cancel()
		keys, err := stores.Registry.Keys(ctx)
		if err != nil {
			return false
		}
		for _, k := range keys {
			e, err := stores.Registry.Get(ctx, k)
			if err != nil {
				return false
			}
			var d broker.DeviceEntry
			if err := json.Unmarshal(e.Value(), &d); err != nil {
				return false
			}
			out[d.Serial] = d
		}
		return true
	}, "the registry read")
	return out
}

// --nats-replicas 3 on a single server fails at start and says why.
func TestReplicasNeedACluster(t *testing.T) {
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir()}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { ns.Shutdown(); ns.WaitForShutdown() }()
	out, err := runCorral(t, "gateway", "--nats-url", ns.ClientURL(), "--nats-replicas", "3", "--http", "127.0.0.1:0")
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("corral gateway --nats-replicas 3 on one server: %v\n%s", err, out)
	}
	contains(t, out, "3 replicas need a NATS cluster of at least 3 JetStream servers", "--nats-replicas 1")
}

// testLog writes to the test log until the test is over.
type testLog struct {
	t    *testing.T
	done *atomic.Bool
}

func (w testLog) Write(p []byte) (int, error) {
	if !w.done.Load() {
		w.t.Log(strings.TrimRight(string(p), "\n"))
	}
	return len(p), nil
}
