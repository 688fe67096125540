// Package embedded runs nats-server inside Corral's process: `corral up` on a laptop, and the
// tests. It is a package of its own so that what only connects to NATS (the gateway, the CLI,
// drivers) does not link the server.
package embedded

import (
	"cmp"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// MaxPayload is the largest message the embedded server takes: 24 MiB, for a vision request,
// which carries up to two images (a diff's frames, a match's screen and template) of
// vision.MaxImageBytes each, base64 in JSON. nats-server's default is 1 MiB; a standalone
// server of a farm with vision workers needs max_payload: 24MB too (docs/operations.md).
// Screenshots and task records stay far below it.
const MaxPayload = 24 << 20

// Options configure an in-process NATS server.
type Options struct {
	// Host defaults to 127.0.0.1: the embedded server is for this machine only.
	Host string
	// Port defaults to 4222; -1 picks a free port.
	Port int
	// StoreDir holds JetStream's data.
	StoreDir string
	// MaxStore bounds JetStream's file storage, in bytes; 0 leaves nats-server's own bound:
	// 75% of the free space on StoreDir's disk at start. Streams reserve their MaxBytes in it.
	MaxStore int64
	// Name names the server (shown by `nats server info`); servers of a cluster need
	// different names.
	Name string
	// Cluster, when set, joins this server to a NATS cluster with JetStream replication.
	Cluster *ClusterOptions
	// Users, when set, are the only clients the server accepts, each limited to its subjects
	// (a role's: broker.PermissionsFor). Without users anyone who reaches the port may do
	// anything: only for tests.
	Users []User
	// TLS, when set, makes clients connect over TLS.
	TLS *TLSOptions
	// Domain is the server's JetStream domain: a site's name (leaf.go), empty for a hub or a
	// farm of one place.
	Domain string
	// LeafListen, when set, accepts sites' leaf connections (a hub); LeafRemote, when set,
	// connects to a hub as a leaf node (a site).
	LeafListen *LeafListenOptions
	LeafRemote *LeafRemoteOptions
	// ReviveEvery is how often a server whose stores take no writes (its disk was full) looks
	// whether the disk has room again to restart its JetStream (revive.go): 0 means
	// DefaultReviveEvery, below 0 never. A cluster's members never do: they rejoin its
	// JetStream when restarted.
	ReviveEvery time.Duration
}

// TLSOptions are the server's certificate and key files, and a CA that client certificates
// must be signed by (VerifyClients) when set.
type TLSOptions struct {
	Cert, Key, CA string
	VerifyClients bool
}

// ClusterOptions make an embedded server one member of a NATS cluster.
type ClusterOptions struct {
	// Name is the cluster's name, the same on every member.
	Name string
	// Port listens for the other members' routes on Host; -1 picks a free port.
	Port int
	// Routes are the other members' route URLs (nats-route://host:port). Listing every member,
	// this one included, is fine: a server ignores its own.
	Routes []string
}

// portInUse says what its callers (corral up, corral node --site) can do when their embedded
// NATS's port is taken: neither joins another NATS itself (corral up has no --nats-url, and
// --site refuses it), but corral node and corral gateway can.
func portInUse(port int, host string, err error) error {
	return fmt.Errorf("embedded nats: port %d on %s is in use (%w): pass --nats-port with another port, or -1 for any free port; "+
		"to join the NATS running there instead, run corral node and corral gateway with its --nats-context (or --nats-url)",
		port, host, err)
}

// readyTimeout bounds the wait for the server to accept connections.
const readyTimeout = 10 * time.Second

// waitReady waits until ns accepts connections, and says why when it does not: a fatal it
// logged ends the wait at once (nats-server would have exited), a timeout names its last error.
func waitReady(ns *server.Server, serverLog *serverLog, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for !ns.ReadyForConnections(100 * time.Millisecond) {
		select {
		case <-serverLog.fatal:
			return fmt.Errorf("the server could not start: %s", serverLog.lastError())
		default:
		}
		if time.Now().After(deadline) {
			if last := serverLog.lastError(); last != "" {
				return fmt.Errorf("not ready after %s; its last error: %s", timeout, last)
			}
			return fmt.Errorf("not ready after %s", timeout)
		}
	}
	return nil
}

// Start starts an in-process nats-server with JetStream and waits until it accepts
// connections. Shut it down with Shutdown and WaitForShutdown.
func Start(opts Options, log *slog.Logger) (*server.Server, error) {
	if opts.Host == "" {
		opts.Host = "127.0.0.1"
	}
	if opts.Port == 0 {
		opts.Port = 4222
	}
	if opts.Name == "" {
		opts.Name = "corral-embedded"
	}
	if opts.StoreDir == "" {
		return nil, fmt.Errorf("embedded nats: a JetStream store directory is required (--data)")
	}
	if opts.Port > 0 {
		// Say clearly when the port is taken rather than let the server log and exit.
		l, err := net.Listen("tcp", net.JoinHostPort(opts.Host, strconv.Itoa(opts.Port)))
		if err != nil {
			return nil, portInUse(opts.Port, opts.Host, err)
		}
		_ = l.Close()
	}
	so := &server.Options{
		ServerName: opts.Name,
		Host:       opts.Host,
		Port:       opts.Port,
		JetStream:  true,
		StoreDir:   opts.StoreDir,
		NoSigs:     true,
		MaxPayload: MaxPayload,

		JetStreamMaxStore: opts.MaxStore,
	}
	if len(opts.Users) > 0 {
		so.Users = serverUsers(opts.Users)
	}
	if t := opts.TLS; t != nil {
		cfg, err := server.GenTLSConfig(&server.TLSConfigOpts{CertFile: t.Cert, KeyFile: t.Key, CaFile: t.CA, Verify: t.VerifyClients})
		if err != nil {
			return nil, fmt.Errorf("embedded nats: TLS: %w (check --nats-tls-cert and --nats-tls-key)", err)
		}
		so.TLSConfig, so.TLS, so.TLSVerify = cfg, true, t.VerifyClients
		so.TLSTimeout = 5
	}
	if err := leafOptions(so, opts); err != nil {
		return nil, fmt.Errorf("embedded nats %s: %w", opts.Name, err)
	}
	if c := opts.Cluster; c != nil {
		if c.Name == "" {
			return nil, fmt.Errorf("embedded nats %s: a cluster needs a name", opts.Name)
		}
		so.Cluster = server.ClusterOpts{Name: c.Name, Host: opts.Host, Port: c.Port}
		for _, r := range c.Routes {
			u, err := url.Parse(r)
			if err != nil {
				return nil, fmt.Errorf("embedded nats %s: route %q: %w", opts.Name, r, err)
			}
			so.Routes = append(so.Routes, u)
		}
	}
	ns, err := server.NewServer(so)
	if err != nil {
		return nil, fmt.Errorf("embedded nats: %w", err)
	}
	serverLog := newServerLog(log)
	serverLog.leafHint = leafRefusedHint(opts.LeafRemote, opts.Domain)
	serverLog.hubLeafUsers = hubLeafUsers(opts)
	warnHubURLCredentials(opts.LeafRemote, log)
	ns.SetLoggerV2(serverLog, false, false, false)
	ns.Start()
	if err := waitReady(ns, serverLog, readyTimeout); err != nil {
		ns.Shutdown()
		return nil, fmt.Errorf("embedded nats: %w (store %s)", err, opts.StoreDir)
	}
	if every := cmp.Or(opts.ReviveEvery, DefaultReviveEvery); every > 0 && opts.Cluster == nil {
		go reviveJetStream(ns, so, every, serverLog)
	}
	log.Info("embedded NATS started", "name", opts.Name, "url", ns.ClientURL(), "store", opts.StoreDir, "cluster", so.Cluster.Name,
		"users", len(so.Users), "tls", so.TLS, "domain", so.JetStreamDomain, "leaf_port", so.LeafNode.Port, "uplink", len(so.LeafNode.Remotes) > 0)
	return ns, nil
}
