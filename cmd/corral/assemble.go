package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/corral-farm/corral/actors"
	"github.com/corral-farm/corral/arm/rig"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/streamend"
	"github.com/corral-farm/corral/mcp"
	"github.com/corral-farm/corral/nodes"
	"github.com/corral-farm/corral/nodes/agent/model"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/sim"
	"github.com/corral-farm/corral/nodes/tools"
	"github.com/corral-farm/corral/vision"
)

func (n natsFlags) options(name string) broker.ConnectOptions {
	return broker.ConnectOptions{URL: *n.url, Name: name, Context: *n.context, CredsFile: *n.creds, NKeyFile: *n.nkey,
		User: *n.user, PasswordFile: *n.passwordFile, TLSCert: *n.tlsCert, TLSKey: *n.tlsKey, TLSCA: *n.tlsCA}
}

// newRegistry returns a metrics registry with the Go and process collectors.
func newRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// gatewayParts is a running gateway.
type gatewayParts struct {
	server     *http.Server
	addr       string
	client     *broker.Client
	endStreams func() // ends the GET streams in flight
	// endLife stops what the client and the sites' watch run in the background: not at the
	// signal, which would leave the calls still draining without the farm's news.
	endLife  func()
	draining *drainMark
	timeout  time.Duration // --drain-timeout
	delay    time.Duration // --drain-delay
	log      *slog.Logger
}

// startGateway serves the MCP front door on --http over the farm reached through nc, offering
// agents the platforms ps.
func startGateway(ctx context.Context, nc *nats.Conn, gf gatewayFlags, ps []device.Platform, reg *prometheus.Registry, log *slog.Logger) (*gatewayParts, error) {
	ln, err := listenHTTP(*gf.http)
	if err != nil {
		return nil, err
	}
	return startGatewayOn(ctx, ln, nc, gf, ps, reg, log, nil)
}

// startGatewayOn is startGateway on a listener already bound to --http: a command that starts
// more than the gateway binds it first, so that an address in use stops it before anything
// else starts. It closes ln when it fails. alsoReady (nil: none) is a readiness check of what
// else the process runs (corral up's node), for the gateway's /readyz.
func startGatewayOn(ctx context.Context, ln net.Listener, nc *nats.Conn, gf gatewayFlags, ps []device.Platform, reg *prometheus.Registry, log *slog.Logger,
	alsoReady func() error) (gw *gatewayParts, err error) {
	defer func() {
		if err != nil {
			_ = ln.Close()
		}
	}()
	opts, err := gf.options()
	if err != nil {
		return nil, err
	}
	opts.Platforms = ps
	retention, err := gf.stores()
	if err != nil {
		return nil, err
	}
	retention.Log = log
	// First: a store a node made could take the replies of what the gateway asks, and of what
	// it answers, until its start repaired it (broker/streams_capture.go). A failed repair
	// stops the start before the gateway answers anything.
	stores, err := broker.EnsureStores(ctx, nc, retention)
	if err != nil {
		return nil, err
	}
	if opts.Policy != nil { // the policy's session ids and console cookies are keyed with the farm's secret
		if opts.SessionSecret, err = broker.GatewaySecret(ctx, stores.JS, retention.Replicas); err != nil {
			return nil, err
		}
	}
	broker.WarnSessionsOverCap(ctx, stores.Sessions, log) // --sessions-max-bytes under what the bucket holds
	// The signal cancels ctx; the client lives on until the calls in flight are drained.
	life, endLife := context.WithCancel(context.WithoutCancel(ctx))
	defer func() {
		if err != nil {
			endLife()
		}
	}()
	sites, err := watchSites(life, nc, gf, reg, log)
	if err != nil {
		return nil, err
	}
	reg.MustRegister(broker.SiteNodes(sites)) // corral_site_node, for the alert rules (none without --sites)
	client, err := broker.NewClient(life, nc, stores, broker.ClientOptions{Log: log, Reap: true, Metrics: broker.NewClientMetrics(reg), Sites: sites})
	if err != nil {
		return nil, err
	}
	reg.MustRegister(broker.NewSessionsStoreMetrics(life, stores.Sessions, log)) // how full the sessions' bucket is
	draining := &drainMark{}
	opts.Ready, opts.Gatherer = client.Ready, reg
	if alsoReady != nil {
		opts.Ready = func() error { return cmp.Or(client.Ready(), alsoReady()) }
	}
	opts.Ready = draining.ready(opts.Ready)
	g := mcp.New(client, log, mcp.NewMetrics(reg), opts)
	srv := g.HTTPServer() // the front door's limits: --idle-timeout, header size and time
	streams, endStreams := context.WithCancel(context.Background())
	registryRead := make(chan struct{})
	srv.Handler = endingStreams(streams, draining.refusingNewSessions(afterRegistry(registryRead, srv.Handler)))
	go func() {
		if err := srv.Serve(g.Listener(ln)); err != nil && !errors.Is(err, http.ErrServerClosed) { // --max-conns
			log.Error("gateway HTTP server stopped", "err", err)
		}
	}()
	if err := client.WaitReady(ctx); err != nil {
		endStreams()
		_ = srv.Close()
		return nil, err
	}
	close(registryRead)
	return &gatewayParts{server: srv, addr: ln.Addr().String(), client: client, endStreams: endStreams, endLife: endLife,
		draining: draining, timeout: *gf.drain.timeout, delay: *gf.drain.delay, log: log}, nil
}

// endingStreams ends the GET requests in flight (MCP's listen streams, which never end by
// themselves) once stop is done: a stopping server waits for every request, and an agent's
// open stream held each stop for the whole drain. The server may close such a stream at any time;
// the client opens it again elsewhere.
func endingStreams(stop context.Context, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			next.ServeHTTP(w, r)
			return
		}
		stream, r := streamend.Start(w, r) // a clean end, or within a bound on a dead connection
		defer stream.Done()
		defer context.AfterFunc(stop, stream.End)()
		next.ServeHTTP(w, r)
	})
}

// listenHTTP listens on the gateway's --http address. Only an address in use may be another
// corral's.
func listenHTTP(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return nil, fmt.Errorf("listen on %s: %w (is another corral running? choose another address with --http)", addr, err)
	case err != nil:
		return nil, fmt.Errorf("--http %s: %w (give an address of this machine, e.g. 127.0.0.1:8420)", addr, err)
	}
	return ln, nil
}

// gatewayFlush bounds how long a stopped gateway waits for its client's last writes.
const gatewayFlush = 5 * time.Second

// stop stops the gateway: it drains (gatewaydrain.go), answers the calls in flight within
// --drain-timeout and flushes its client.
func (g *gatewayParts) stop() { g.shutdown()() }

// shutdown drains: /readyz turns 503 and new sessions are refused at once, connections are
// still accepted for --drain-delay, then the listener closes. It returns the wait for the
// answers of the calls in flight, up to --drain-timeout from the start, then the client's
// flush. corral up stops its node in between: the calls in flight wait for its tasks, which
// end only when the node cancels them, so waiting first held every stop for the whole drain
// and cut the callers' answers (a transport EOF instead of "stopped").
func (g *gatewayParts) shutdown() (wait func()) {
	deadline := time.Now().Add(g.timeout)
	g.draining.on.Store(true)
	// Each answer now closes its connection: the client's next request connects anew, through
	// the Service, to a gateway that stays.
	g.server.SetKeepAlivesEnabled(false)
	g.log.Info("gateway draining: /readyz answers 503, new sessions are refused", "accepting_for", g.delay, "drain_timeout", g.timeout)
	if g.delay > 0 {
		time.Sleep(g.delay) // the endpoint's removal is seen by the Service meanwhile; a second signal ends it
	}
	g.endStreams()
	// A Shutdown whose context is already done closes the listener and the idle connections,
	// and lets no connection take another request, without waiting for the calls. Not waited
	// for: with --max-conns all taken, it first waits for a connection to end (the listener's
	// Accept holds on to the next slot), and the calls end only once the node stopped.
	now, cancel := context.WithCancel(context.Background())
	cancel()
	go func() { _ = g.server.Shutdown(now) }()
	return func() {
		defer g.endLife()
		// Again, to wait: its polling starts anew, so answers that are ready go out at once.
		ctx, cancel := context.WithDeadline(context.Background(), deadline)
		defer cancel()
		if err := g.server.Shutdown(ctx); err != nil {
			g.log.Warn("calls still running after --drain-timeout: cut", "drain_timeout", g.timeout)
			_ = g.server.Close()
		}
		flush, stop := context.WithTimeout(context.Background(), gatewayFlush)
		defer stop()
		g.client.Flush(flush)
	}
}

// nodeSettings are the flags of a node.
type nodeSettings struct {
	id                 *string
	sims               *int
	leaseTTL, leaseMax *time.Duration
	grace              *time.Duration
	maxQueue           *int
	passcodes          *string
	appSources         *string
	deviceTags         *string                      // --device-tags: the node's tags for all its devices
	model              func() (model.Config, error) // the model of agent tasks (--openai-*, OPENAI_*)
	platforms          []device.Attacher            // one per platform, in the order of platforms()
	rigsFile           flag.Value                   // --arm, arm/rig's: read at start, so checked by check
	flags              *flag.FlagSet                // the platforms' flags are checked there
	// shared: the node serves a shared farm (a node of its own, or callers authenticated by
	// --auth-policy): app_install takes apps only from --app-sources.
	shared bool
	// sizes: those of the stores the node creates when missing (corral node's
	// --events-max-bytes and --screenshots-max-bytes); zero: broker's defaults.
	sizes broker.StoreOptions
}

// nodeFlags defines a node's flags, and those of each platform in ps.
func (f *flags) nodeFlags(defaultSims int, ps []device.Platform) nodeSettings {
	s := nodeSettings{
		id:        f.String("node-id", "local", "this node's id, unique in the farm (letters, digits, - and _)"),
		sims:      f.Int("sim", defaultSims, "simulated phones to start (-1: 3 when no real device is attached)"),
		leaseTTL:  f.Duration("lease-ttl", 300*time.Second, "idle time after which a lease expires (each call renews it)"),
		leaseMax:  f.Duration("lease-max", 4*time.Hour, "hard maximum of a lease"),
		grace:     f.Duration("grace", time.Second, "time a cancelled driver has to return before its device is marked unhealthy"),
		maxQueue:  f.Int("max-queue", actors.DefaultMaxQueue, "tasks and lease requests that may wait for one device; more are refused with queue_full"),
		passcodes: f.String("passcodes", "", `YAML file of lock screen passcodes for unlock_phone, device serial (or "*") to passcode; read once at start`),
		appSources: f.commaList("app-sources", "", "where app_install may take apps from, comma-separated: host names (.example.com for subdomains too; "+
			"named hosts may be local), * for any host with public addresses only, and directories on this node; empty: none on "+
			"corral node and corral up --auth-policy, anywhere on a laptop's corral up"),
		deviceTags: f.commaList("device-tags", "", "tags this node gives every device it serves, beside its driver's (sim, web), comma-separated, "+
			"e.g. pool-a: an --auth-policy principal with tags [pool-a] may use them"),
	}
	s.model = refusedAsBadValue(model.Flags(f.FlagSet, os.LookupEnv))
	s.flags = f.FlagSet
	for _, p := range ps {
		s.platforms = append(s.platforms, p.Flags(f.FlagSet))
	}
	f.markCommaList("web-allow") // the browsers' hosts (nodes/web), when the node has them
	if fl := f.Lookup("arm"); fl != nil {
		s.rigsFile = fl.Value
	}
	return s
}

// agentModel is the model client of agent tasks, nil when none is configured.
func (s nodeSettings) agentModel(log *slog.Logger, metrics *model.Metrics) (model.Chatter, error) {
	cfg, err := s.model()
	if err != nil {
		return nil, err
	}
	if !cfg.Enabled() {
		log.Info("agent tasks are off: " + cfg.OffReason())
		return nil, nil
	}
	c, err := model.NewClient(cfg, log, model.WithMetrics(metrics))
	if err != nil {
		return nil, badValue(fmt.Errorf("agent tasks' model: %w", err)) // NewClient refuses only what Validate does
	}
	log.Info("agent tasks use a model", "model", cfg.Model, "endpoint", c.String())
	return c, nil
}

// sources returns --app-sources as a list.
func (s nodeSettings) sources() []string {
	var out []string
	for _, src := range strings.Split(*s.appSources, ",") {
		if src = strings.TrimSpace(src); src != "" {
			out = append(out, src)
		}
	}
	return out
}

// check validates the node's flags, for --check-config and before a start: the id, the
// counts and durations, the platforms' flags, --max-queue (refused as badValues), and the
// files they name (passcodes, rigs), which are read.
func (s nodeSettings) check() error {
	if !nodes.ValidID(*s.id) {
		return badValue(fmt.Errorf("--node-id %q: use letters, digits, '-' and '_' (at most 64)", *s.id))
	}
	var errs []error
	if *s.sims < -1 {
		errs = append(errs, fmt.Errorf("--sim %d: give how many simulated phones to start, 0 or more (-1: 3 when no real device is attached)", *s.sims))
	}
	for _, d := range []struct {
		name    string
		v       time.Duration
		example string
	}{{"--lease-ttl", *s.leaseTTL, "5m"}, {"--lease-max", *s.leaseMax, "4h"}, {"--grace", *s.grace, "1s"}} {
		if d.v <= 0 {
			errs = append(errs, fmt.Errorf("%s %s: give a positive duration, e.g. %s", d.name, d.v, d.example))
		}
	}
	if s.flags != nil {
		errs = append(errs, checkPlatformFlags(s.flags))
	}
	_, tagsErr := s.tags()
	errs = append(errs, s.checkMaxQueue(), tagsErr)
	if err := errors.Join(errs...); err != nil {
		return badValue(err)
	}
	if *s.passcodes != "" {
		if _, err := tools.LoadPasscodes(*s.passcodes); err != nil {
			return fmt.Errorf("--passcodes: %w", err)
		}
	}
	if s.rigsFile != nil && s.rigsFile.String() != "" {
		if _, err := rig.ReadRigs(s.rigsFile.String()); err != nil {
			return fmt.Errorf("--arm %s: %w", s.rigsFile, err)
		}
	}
	if cfg, err := s.model(); err != nil {
		return err
	} else if cfg.Enabled() {
		return badValue(cfg.Validate())
	}
	return nil
}

// refusedAsBadValue is resolve with the values it refuses (no model for a base URL, a
// setting that is no boolean, a key file it cannot read: the flag names a wrong file) marked
// as such, for exit status 2, as the other model settings' errors.
func refusedAsBadValue(resolve func() (model.Config, error)) func() (model.Config, error) {
	return func() (model.Config, error) {
		cfg, err := resolve()
		return cfg, badValue(err) // a key file that cannot be read too: the flag names a wrong file
	}
}

func (s nodeSettings) checkMaxQueue() error {
	if *s.maxQueue < 1 {
		return fmt.Errorf("--max-queue %d: at least 1 (a device with no queue could take no waiter at all)", *s.maxQueue)
	}
	return nil
}

// startNode starts a node on its own NATS connection with its devices: those its platforms
// attach (Android devices from an adb server, simulated Android devices, ...), and simulated
// phones (--sim; -1: 3 when no platform has a device). Stop it with the function it returns.
func startNode(ctx context.Context, conn broker.ConnectOptions, s nodeSettings, reg prometheus.Registerer, log *slog.Logger) (func(), error) {
	n, err := startClaimedNode(ctx, conn, s, reg, log)
	if err != nil {
		return nil, err
	}
	return n.stop, nil
}

// runningNode is a started node: stop stops it and gives its id back; lost is closed if
// another node took its id over (this one was silent too long), when it must stop; ready
// says whether it reaches NATS (its /readyz).
type runningNode struct {
	stop  func()
	lost  <-chan struct{}
	ready func() error
}

// startClaimedNode is startNode, which first claims the node id in NATS: a second node with
// the same id refuses to start.
// Its metrics go to reg.
func startClaimedNode(ctx context.Context, conn broker.ConnectOptions, s nodeSettings, reg prometheus.Registerer, log *slog.Logger) (*runningNode, error) {
	conn.Name = "corral-node-" + *s.id
	if err := s.checkMaxQueue(); err != nil {
		return nil, err
	}
	deviceTags, err := s.tags()
	if err != nil {
		return nil, badValue(err)
	}
	var passcodes tools.Passcodes // secrets: only their number is ever logged
	if *s.passcodes != "" {
		p, err := tools.LoadPasscodes(*s.passcodes)
		if err != nil {
			return nil, fmt.Errorf("--passcodes: %w", err)
		}
		passcodes = p
		log.Info("lock screen passcodes loaded", "devices", p.Len())
	}
	metrics, modelMetrics := actors.NewMetrics(reg), model.NewMetrics(reg)
	agentModel, err := s.agentModel(log, modelMetrics)
	if err != nil {
		return nil, err
	}
	nc, err := broker.Connect(conn, log)
	if err != nil {
		return nil, err
	}
	// A node creates missing stores but changes none (its NATS user may not: one that leaks is
	// said at WARN), and writes its registry and lease entries under its own keys, the only ones
	// its NATS user may write.
	created := s.sizes
	created.CreateOnly, created.Node, created.Log = true, true, log
	stores, err := broker.EnsureStores(ctx, nc, created)
	if err != nil {
		nc.Close()
		return nil, err
	}
	// The claim has a connection of its own: the node drains its connection as it stops, and
	// the claim must outlive the node's last writes.
	claimConn := conn
	claimConn.Name += "-claim"
	cc, err := broker.Connect(claimConn, log)
	if err != nil {
		nc.Close()
		return nil, err
	}
	// One boot id for the claim and the node: a refusal naming the holder's boot can be
	// matched with its heartbeats, its micro service and its "node started" line.
	boot := broker.NewBootID()
	claim, err := broker.ClaimNode(ctx, cc, *s.id, boot, log)
	if err != nil {
		cc.Close()
		nc.Close()
		return nil, err
	}
	release := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		claim.Release(ctx)
		cc.Close()
		nc.Close()
	}
	n, err := nodes.Start(ctx, nodes.Config{ID: *s.id, Boot: boot, NC: nc, Stores: stores, LeaseTTL: *s.leaseTTL,
		LeaseMax: *s.leaseMax, Grace: *s.grace, MaxQueue: *s.maxQueue, Metrics: metrics, Log: log, DeviceTags: deviceTags,
		Ops: tools.DefaultOpsWith(tools.OpsConfig{Passcodes: passcodes, AppSources: s.sources(), Shared: s.shared,
			Vision: vision.NewClient(nc, 0, vision.WithLog(log)), Model: agentModel, Log: log,
			Screenshots: nodes.ScreenshotSaver{Stores: stores, Node: *s.id, Metrics: metrics, Log: log}})})
	if err != nil {
		release()
		return nil, err
	}
	count := *s.sims
	if count < 0 && !slices.ContainsFunc(s.platforms, func(a device.Attacher) bool { return a.Real(ctx) }) {
		count = 3 // no device attached: a newcomer still sees a working farm
	}
	for i := 1; i <= count; i++ {
		n.AddDriver(sim.New(sim.Numbered("sim-"+*s.id, i, count)))
	}
	var stops []func()
	// The node stops before its platforms let go of their devices: a task running on one is
	// then recorded as stopped by the node's shutdown, not as its device disconnecting.
	stopAll := func() {
		n.Stop()
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
		release() // after the node's last writes: its successor may start at once
	}
	for _, a := range s.platforms {
		stop, err := a.Attach(ctx, n, log)
		if err != nil {
			stopAll()
			return nil, err
		}
		stops = append(stops, stop)
	}
	if err := reg.Register(n.StoreMetrics()); err != nil && !errors.As(err, new(prometheus.AlreadyRegisteredError)) {
		stopAll()
		return nil, fmt.Errorf("node %s: metrics: %w", *s.id, err)
	}
	log.Info("node ready", append([]any{"node", *s.id}, s.simulatedAttrs(max(count, 0))...)...)
	connected := natsConnected(nc)
	// Not ready while cut off from NATS, nor while its stores take no writes (a full disk): its
	// calls would run, their records be lost.
	ready := func() error { return cmp.Or(connected(), n.StoresReady()) }
	return &runningNode{stop: stopAll, lost: claim.Lost(), ready: ready}, nil
}

// simulatedAttrs are what the node's ready line says of the simulated devices it starts: how
// many in all, and how many each flag asked for (simulated_by: --sim's phones, and --sim-android,
// --sim-ios, --sim-arm, --sim-web, those it did not ask for left out).
func (s nodeSettings) simulatedAttrs(phones int) []any {
	total, by := phones, []any{}
	if phones > 0 {
		by = append(by, slog.Int("sim", phones))
	}
	for _, name := range []string{"sim-android", "sim-ios", "sim-arm", "sim-web"} {
		if n, ok := s.platformCount(name); ok && n > 0 {
			total += n
			by = append(by, slog.Int(name, n))
		}
	}
	return []any{"simulated", total, slog.Group("simulated_by", by...)}
}

// platformCount is the value of a platform's count flag (--sim-android), false when the node
// has no such flag.
func (s nodeSettings) platformCount(name string) (int, bool) {
	if s.flags == nil {
		return 0, false
	}
	return flagValue[int](s.flags, name)
}
