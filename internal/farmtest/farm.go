// Package farmtest starts a whole Corral farm inside a test: a real nats-server with
// JetStream, edge nodes with simulated phones, gateways serving MCP over HTTP, and real MCP
// clients. Nothing is mocked.
package farmtest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/corral-farm/corral/actors"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/mcp"
	"github.com/corral-farm/corral/nodes"
	"github.com/corral-farm/corral/nodes/agent/model"
	"github.com/corral-farm/corral/nodes/android"
	"github.com/corral-farm/corral/nodes/android/adbsim"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/sim"
	"github.com/corral-farm/corral/nodes/tools"
)

// Options shape a test farm.
type Options struct {
	Nodes         int // default 1
	PhonesPerNode int // default 3
	LeaseTTL      time.Duration
	Grace         time.Duration
	MaxQueue      int // waiters per device (actors.DefaultMaxQueue if 0)
	// Quiet drops logs; by default warnings and errors go to the test log.
	Quiet bool
	// InProcessNATS connects the gateway and the nodes to the farm's NATS server in-process,
	// as `corral up` does, rather than over loopback TCP.
	InProcessNATS bool
	// Platforms are the platforms the gateway offers agents, as `corral up` registers them
	// (nil: Android's, which the simulated phones are).
	Platforms []device.Platform
	// Auth makes NATS require credentials, as `corral up` does: a user per role with its
	// subject permissions (nodes n1 to n9 each have their own), nodes and the gateway connecting
	// as theirs. Farm.Context names each user's natscli context file.
	Auth bool
	// Passcodes are the nodes' passcodes for unlock_phone (--passcodes); the simulated phones
	// know their own.
	Passcodes tools.Passcodes
	// Model is the nodes' model of agent tasks (run_agent_task, ai_action, ai_query); nil: none.
	Model model.Chatter
	// Users are more NATS users beside the farm's (Auth), such as a test's observer.
	Users []embedded.User
}

// authNodes are the node ids a farm with Auth has users for.
const authNodes = 9

// Farm is a running test farm.
type Farm struct {
	t        testing.TB
	ctx      context.Context
	cancel   context.CancelFunc
	opts     Options
	NATS     *server.Server
	URL      string
	Registry *prometheus.Registry
	metrics  *actors.Metrics
	log      *slog.Logger
	done     *atomic.Bool
	contexts map[string]string // natscli context file by NATS user (Auth)

	sites []string // a hub's edge sites (leaf.go): its gateway aggregates their stores
	// siteNodes are the sites' nodes: the hub's gateway takes those nodes' entries and events
	// from each site only (corral gateway --site-nodes).
	siteNodes []broker.Site

	mu      sync.Mutex
	nodes   map[string]*nodes.Node
	phones  map[string]*sim.Phone
	gateway *Gateway
}

// Gateway is a running gateway: its MCP endpoint and its farm client.
type Gateway struct {
	HTTP   *httptest.Server
	MCPURL string
	Client *broker.Client
	Sites  *broker.SiteWatch // a hub's (leaf.go); nil elsewhere
	cancel context.CancelFunc
}

// Start starts a farm and stops it when the test ends.
func Start(t testing.TB, opts Options) *Farm {
	t.Helper()
	f := serve(t, opts, embedded.Options{Users: opts.Users})
	for i := 1; i <= f.opts.Nodes; i++ {
		f.StartNode(fmt.Sprintf("n%d", i), f.opts.PhonesPerNode)
	}
	f.StartGateway()
	f.WaitDevices(f.opts.Nodes*f.opts.PhonesPerNode, broker.StateOnline)
	return f
}

// serve starts a farm's NATS server with so (its port and store chosen here, its users
// added to so's), without nodes or a gateway, and stops it when the test ends.
func serve(t testing.TB, opts Options, so embedded.Options) *Farm {
	t.Helper()
	if opts.Nodes == 0 {
		opts.Nodes = 1
	}
	if opts.PhonesPerNode == 0 {
		opts.PhonesPerNode = 3
	}
	if opts.Platforms == nil {
		opts.Platforms = []device.Platform{android.Platform()}
	}
	level := slog.LevelWarn
	if os.Getenv("CORRAL_TEST_DEBUG") != "" {
		level = slog.LevelDebug
	}
	done := new(atomic.Bool)
	log := slog.New(slog.NewTextHandler(testWriter{t, done}, &slog.HandlerOptions{Level: level}))
	if opts.Quiet {
		log = slog.New(slog.DiscardHandler)
	}
	var users []broker.User
	var secrets *broker.Secrets
	var serverUsers []embedded.User
	if opts.Auth {
		ids := make([]string, authNodes)
		for i := range ids {
			ids[i] = fmt.Sprintf("n%d", i+1)
		}
		var err error
		if secrets, err = broker.OpenSecrets(t.TempDir()); err == nil {
			users, err = broker.FarmUsers(ids, secrets.Password)
		}
		for _, u := range users {
			p, perr := u.Permissions()
			err = errors.Join(err, perr)
			serverUsers = append(serverUsers, embedded.User{Name: u.Name, Password: u.Password, Permissions: embedded.Permissions(p)})
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	so.Port, so.StoreDir, so.Users = -1, t.TempDir(), append(serverUsers, so.Users...)
	ns, err := embedded.Start(so, log)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	f := &Farm{done: done, t: t, ctx: ctx, cancel: cancel, opts: opts, NATS: ns, URL: ns.ClientURL(), Registry: prometheus.NewRegistry(),
		log: log, nodes: map[string]*nodes.Node{}, phones: map[string]*sim.Phone{}}
	if opts.Auth {
		if f.contexts, err = secrets.WriteContexts(f.URL, "", users); err != nil {
			ns.Shutdown()
			t.Fatal(err)
		}
	}
	f.metrics = actors.NewMetrics(f.Registry)
	t.Cleanup(f.stop)
	return f
}

func (f *Farm) stop() {
	f.mu.Lock()
	gw := f.gateway
	ns := make([]*nodes.Node, 0, len(f.nodes))
	for _, n := range f.nodes {
		ns = append(ns, n)
	}
	phones := make([]*sim.Phone, 0, len(f.phones))
	for _, p := range f.phones {
		phones = append(phones, p)
	}
	f.mu.Unlock()
	if gw != nil {
		f.stopGateway(gw)
	}
	for _, p := range phones {
		_ = p.Close() // frees operations a test left hanging
	}
	for _, n := range ns {
		n.Stop()
	}
	f.cancel()
	f.NATS.Shutdown()
	f.NATS.WaitForShutdown()
	f.done.Store(true)
}

// StartNode starts node id with count simulated phones named <id>-p<k>.
func (f *Farm) StartNode(id string, count int) {
	f.t.Helper()
	if err := f.startNode(id, count); err != nil {
		f.t.Fatal(err)
	}
}

// KillNode stops a node as a crash would.
func (f *Farm) KillNode(id string) {
	f.mu.Lock()
	n := f.nodes[id]
	delete(f.nodes, id)
	f.mu.Unlock()
	n.Kill()
}

// Phone returns the simulated phone with this serial.
func (f *Farm) Phone(serial string) *sim.Phone {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, ok := f.phones[serial]
	if !ok {
		f.t.Fatalf("no phone %s", serial)
	}
	return p
}

// Phones returns every simulated phone.
func (f *Farm) Phones() []*sim.Phone {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]*sim.Phone, 0, len(f.phones))
	for _, p := range f.phones {
		out = append(out, p)
	}
	return out
}

// StartGateway starts a gateway (replacing none: call StopGateway first to restart it).
func (f *Farm) StartGateway() *Gateway {
	f.t.Helper()
	nc, err := broker.Connect(f.Connect(broker.UserName(broker.RoleGateway, ""), "gateway"), f.log)
	if err != nil {
		f.t.Fatal(err)
	}
	stores, err := broker.EnsureStores(f.ctx, nc, broker.StoreOptions{Sites: f.sites, SiteNodes: f.siteNodes})
	if err != nil {
		f.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(f.ctx)
	reg := prometheus.NewRegistry()
	var sites *broker.SiteWatch
	if len(f.sites) > 0 {
		if sites, err = broker.WatchSitesWithNodes(ctx, nc, f.sites, f.siteNodes, broker.NewSiteMetrics(reg), f.log); err != nil {
			f.t.Fatal(err)
		}
	}
	c, err := broker.NewClient(ctx, nc, stores, broker.ClientOptions{Log: f.log, Reap: true, Metrics: broker.NewClientMetrics(reg), Sites: sites})
	if err != nil {
		f.t.Fatal(err)
	}
	if err := c.WaitReady(ctx); err != nil {
		f.t.Fatal(err)
	}
	g := mcp.New(c, f.log, mcp.NewMetrics(reg), mcp.Options{Ready: c.Ready, Gatherer: prometheus.Gatherers{reg, f.Registry},
		Platforms: f.opts.Platforms})
	hs := httptest.NewServer(g.Handler())
	gw := &Gateway{HTTP: hs, MCPURL: hs.URL + "/mcp", Client: c, Sites: sites, cancel: func() { g.Close(); cancel(); nc.Close() }}
	f.mu.Lock()
	f.gateway = gw
	f.mu.Unlock()
	return gw
}

// Context is the natscli context file of a NATS user of a farm with Auth ("" without).
func (f *Farm) Context(user string) string {
	if !f.opts.Auth {
		return ""
	}
	c, ok := f.contexts[user]
	if !ok {
		f.t.Fatalf("farm has no NATS user %q", user)
	}
	return c
}

// Connect returns how a NATS user of the farm connects (without Auth, anyone connects).
func (f *Farm) Connect(user, name string) broker.ConnectOptions {
	o := broker.ConnectOptions{URL: f.URL, Name: name, Context: f.Context(user)}
	if f.opts.InProcessNATS {
		o.InProcess = f.NATS
	}
	return o
}

// Gateway returns the running gateway.
func (f *Farm) Gateway() *Gateway {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.gateway
}

// StopGateway stops the running gateway.
func (f *Farm) StopGateway() {
	f.mu.Lock()
	gw := f.gateway
	f.gateway = nil
	f.mu.Unlock()
	f.stopGateway(gw)
}

func (f *Farm) stopGateway(gw *Gateway) {
	gw.HTTP.CloseClientConnections()
	gw.HTTP.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	gw.Client.Flush(ctx)
	cancel()
	gw.cancel()
}

// Client returns an initialized MCP client over streamable HTTP to the running gateway,
// speaking the newest protocol revision both sides know.
func (f *Farm) Client(name string) *client.Client { return f.ClientWithProtocol(name, "") }

// Devices returns the registry as the gateway sees it.
func (f *Farm) Devices() []broker.DeviceEntry { return f.Gateway().Client.Devices() }

// setUpWithin bounds the waits of a farm's set-up (its devices online, a hub's sources live):
// no contract of the farm's, only what a loaded test machine may take, so they are generous.
const setUpWithin = 30 * time.Second

// WaitDevices waits until n devices are in state, at most setUpWithin.
func (f *Farm) WaitDevices(n int, state string) {
	f.t.Helper()
	Eventually(f.t, setUpWithin, func() bool {
		count := 0
		for _, d := range f.Devices() {
			if d.State == state {
				count++
			}
		}
		return count == n
	}, "%d devices %s", n, state)
}

// Eventually polls cond every 10 ms until it holds or timeout passes.
func Eventually(t testing.TB, timeout time.Duration, cond func() bool, format string, args ...any) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %s: "+format, append([]any{timeout}, args...)...)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// testWriter sends logs to the test log until the farm has stopped (a test's log must not be
// written after the test ends).
type testWriter struct {
	t    testing.TB
	done *atomic.Bool
}

func (w testWriter) Write(p []byte) (int, error) {
	if !w.done.Load() {
		w.t.Log(string(p))
	}
	return len(p), nil
}

// ClientWithProtocol is Client pinned to a protocol revision (an earlier one has sessions).
func (f *Farm) ClientWithProtocol(name, version string) *client.Client {
	f.t.Helper()
	c, err := client.NewStreamableHttpClient(f.Gateway().MCPURL)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(f.ctx, 10*time.Second)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		f.t.Fatal(err)
	}
	init := mcpgo.InitializeRequest{}
	init.Params.ClientInfo = mcpgo.Implementation{Name: name, Version: "test"}
	init.Params.ProtocolVersion = version
	if _, err := c.Initialize(ctx, init); err != nil {
		f.t.Fatal(err)
	}
	return c
}

// StartAndroid starts count simulated Android devices, a private adb server that connects to
// them, and attaches that server to node id: the whole real Android path, ADB transport
// included. Everything stops with the farm.
func (f *Farm) StartAndroid(id string, count int, opts ...adbsim.Option) (*android.PrivateServer, []*adbsim.Device) {
	f.t.Helper()
	sims, err := adbsim.Start(f.ctx, count, "127.0.0.1:0", opts...)
	if err != nil {
		f.t.Fatal(err)
	}
	adb, err := android.StartPrivateServer(f.ctx)
	if err != nil {
		_ = sims.Close()
		f.t.Fatal(err)
	}
	f.mu.Lock()
	n := f.nodes[id]
	f.mu.Unlock()
	ctx, cancel := context.WithCancel(f.ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := android.Attach(ctx, n, adb.Addr(), f.log, android.WithTags(device.SimulatedTag)); err != nil {
			f.log.Error("attach", "err", err)
		}
	}()
	f.t.Cleanup(func() { cancel(); <-done; adb.Stop(); _ = sims.Close() })
	for _, d := range sims.Devices() {
		if err := adb.Connect(f.ctx, d.Addr()); err != nil {
			f.t.Fatal(err)
		}
	}
	return adb, sims.Devices()
}

// node is node id of the farm; the test fails if it has none.
func (f *Farm) node(id string) *nodes.Node {
	f.t.Helper()
	f.mu.Lock()
	n, ok := f.nodes[id]
	f.mu.Unlock()
	if !ok {
		f.t.Fatalf("no node %s", id)
	}
	return n
}

// AddDriver puts the device of d on node id, as a platform's Attach does.
func (f *Farm) AddDriver(id string, d device.Driver) {
	f.t.Helper()
	n := f.node(id)
	n.AddDriver(d)
}
