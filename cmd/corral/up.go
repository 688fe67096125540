package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/internal/diskfree"
	"github.com/corral-farm/corral/vision/service"
)

// runUp runs the whole farm in one process on an embedded NATS server.
func runUp(ctx context.Context, args []string) error {
	f := newFlags("up")
	gf := f.gatewayFlags()
	f.inOneProcess() // its node stops at once, not after --drain-timeout
	data := f.String("data", "data", "directory for the embedded NATS server's JetStream data")
	natsPort := f.Int("nats-port", 4222, "port of the embedded NATS server on 127.0.0.1 (-1: any free port)")
	site := f.siteFlags()
	leafListen := f.leafListenFlag()
	ps := platforms()
	ns := f.nodeFlags(-1, ps)
	hub := func() hubSettings { return hubSettings{*leafListen, gf.siteList()} } // once parsed
	// Every flag is checked before anything starts (a listen address beyond this machine
	// without a policy above all): a refusal leaves --data as it was.
	log, stop, err := f.start(args, func() error {
		return errors.Join(checkData(*data), checkNATSPort(*natsPort), gf.check(), ns.check(), checkLeaseFlags(f, ns), checkEdge(site, hub()))
	})
	if err != nil || stop {
		return err
	}
	ns.shared = *gf.authPolicy != ""
	// The MCP address is bound before NATS, the node and its devices start: one in use (another
	// corral) stops corral up with nothing started.
	ln, err := listenHTTP(*gf.http)
	if err != nil {
		return err
	}
	defer func() { _ = ln.Close() }() // the gateway's server closes it too; twice does no harm
	// NATS wants credentials: one user per role, with only its role's subjects, their
	// passwords made once into DATA/nats and reused.
	natsd, err := startEmbeddedNATS(*data, *natsPort, *ns.id, site, hub(), log)
	if err != nil {
		return err
	}
	defer natsd.stop()
	url, contexts, conn := natsd.url, natsd.contexts, natsd.connect

	reg := newRegistry()
	if *site.name != "" {
		embedded.WatchUplink(ctx, natsd.server, reg, log)
	}
	// The node, the gateway and the vision worker reach the embedded server in-process (no
	// loopback socket); other clients (natscli, corral CLI) reach it at url.
	gwConn := conn(broker.RoleGateway, "")
	gwConn.Name = "corral-gateway"
	nc, err := broker.Connect(gwConn, log)
	if err != nil {
		return err
	}
	defer nc.Close()
	// The stores are made with the retention flags before the node starts: the node would make
	// missing ones with the defaults (1GiB each), which a small disk cannot reserve.
	if err := ensureUpStores(ctx, nc, gf, log); err != nil {
		return onDataDisk(*data, err)
	}
	node, err := startClaimedNode(ctx, conn(broker.RoleNode, *ns.id), ns, reg, log)
	if err != nil {
		return onDataDisk(*data, err)
	}
	stopNode := sync.OnceFunc(node.stop)
	defer stopNode()
	gw, err := startGatewayOn(ctx, ln, nc, gf, ps, reg, log, node.ready)
	if err != nil {
		return onDataDisk(*data, err)
	}
	// Stopping: the gateway takes no new call, the node cancels its running tasks (--grace),
	// the calls in flight get those answers ("stopped: shutting down"), then the rest stops.
	stopVision := func() {}
	defer func() {
		wait := gw.shutdown()
		stopNode()
		wait()
		stopVision() // after the node: a task being cancelled may still ask it
	}()
	visionState := "off: this corral was built without vision; build it with make build-vision (cgo, OpenCV, Tesseract:\n" +
		"                 make setup installs the Debian packages), or run one elsewhere: corral vision"
	visionOn := false
	if inProcessVision != nil {
		visionCtx := contexts[broker.UserName(broker.RoleVision, "")]
		stop, err := inProcessVision(ctx, conn(broker.RoleVision, ""), reg, log)
		if err != nil {
			log.Warn("no vision worker in this process", "err", err)
			visionState = "off: " + err.Error()
		} else {
			stopVision = stop
			visionOn = true
			visionState = "on: a worker in this process; more: corral vision --nats-context " + visionCtx
		}
	}
	if !visionOn {
		service.NewMetrics(reg) // the dashboards' vision row reads zeros: no slots here
	}
	printWelcome(gw.addr, url, contexts[broker.UserName(broker.RoleAdmin, "")], *gf.authPolicy != "", visionState, edgeWelcome(site, hub()))
	select {
	case <-ctx.Done():
		return nil
	case <-node.lost:
		return fmt.Errorf("node %s: its id was taken over by another node; stopped", *ns.id)
	}
}

// ensureUpStores makes or updates the farm's stores with the retention gf chooses; log is told
// what it repaired (the gateway's start after it finds nothing left to say).
func ensureUpStores(ctx context.Context, nc *nats.Conn, gf gatewayFlags, log *slog.Logger) error {
	retention, err := gf.stores()
	if err != nil {
		return err
	}
	retention.Log = log
	_, err = broker.EnsureStores(ctx, nc, retention)
	return err
}

// onDataDisk adds to a refusal for want of JetStream storage where corral up keeps it: the
// data directory's disk, with what is free there.
func onDataDisk(data string, err error) error {
	if !broker.StorageShort(err) {
		return err
	}
	dir, _ := filepath.Abs(data)
	store := filepath.Join(dir, "jetstream")
	free := "an unknown amount"
	if _, n, ferr := diskfree.Of(dir); ferr == nil {
		free = broker.FormatSize(n)
	}
	return withHint(err, fmt.Sprintf("corral up keeps JetStream in %s, on a disk with %s free, of which its NATS takes at most 75%% "+
		"(what was free at its start): free space there or give --data on a larger disk, then start corral up again; or lower "+
		"--events-max-bytes and --screenshots-max-bytes (docs/operations.md, The data directory)", store, free))
}

// embeddedUsers gives users the permissions of their roles, for the embedded server.
func embeddedUsers(users []broker.User) ([]embedded.User, error) {
	out := make([]embedded.User, 0, len(users))
	for _, u := range users {
		p, err := u.Permissions()
		if err != nil {
			return nil, err
		}
		out = append(out, embedded.User{Name: u.Name, Password: u.Password, Permissions: embedded.Permissions(p), Leaf: u.Role == broker.RoleLeaf})
	}
	return out, nil
}

// visionStarter starts a vision worker on a NATS connection made with conn, its metrics on
// reg; the function it returns stops it. inProcessVision is one in a corral built with vision
// (vision.go), nil otherwise (vision_off.go).
type visionStarter func(ctx context.Context, conn broker.ConnectOptions, reg *prometheus.Registry, log *slog.Logger) (stop func(), err error)

func printWelcome(httpAddr, natsURL, adminContext string, withAuth bool, visionState, edge string) {
	mcpURL := "http://" + httpAddr + "/mcp"
	server := map[string]any{"type": "http", "url": mcpURL}
	bridge, auth := "corral mcp-stdio --gateway "+mcpURL, ""
	if withAuth {
		server["headers"] = map[string]string{"Authorization": "Bearer <your token>"}
		bridge += " --token-file FILE   (or set CORRAL_TOKEN)"
		auth = "  auth           a bearer token of the --auth-policy file is required (docs/auth.md)\n"
	}
	cfg := pasteableJSON(map[string]any{"mcpServers": map[string]any{"corral": server}})
	fmt.Printf(`Corral is up.

  MCP endpoint   %s
  console        http://%s/   (the device wall: docs/console.md)
  metrics        http://%s/metrics
  NATS           %s   (credentials required; a natscli context per role is in %s)
                 export NATS_CONTEXT=%s
                 then: nats micro ls; corral devices; corral drain NODE   (operator.json: read-only)
  vision         %s
%s%s
Client configuration (streamable HTTP), ready to paste (more clients: docs/clients.md):
%s

For stdio-only clients: %s
Stop with Ctrl-C.
`, mcpURL, httpAddr, httpAddr, natsURL, filepath.Dir(adminContext), shellQuoted(adminContext), visionState, auth, edge, cfg, bridge)
}

// pasteableJSON is v as indented JSON to paste, <your token> as it reads: json.MarshalIndent
// escapes <, > and & for HTML (\u003cyour token\u003e).
func pasteableJSON(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v) // maps of strings always encode
	return strings.TrimSuffix(b.String(), "\n")
}

// shellQuoted is path as a shell word, to paste: quoted only when it needs to be (a --data
// with spaces broke the welcome's export line).
func shellQuoted(path string) string {
	if path != "" && !strings.ContainsFunc(path, func(r rune) bool { return !strings.ContainsRune(shellSafe, r) }) {
		return path
	}
	return "'" + strings.ReplaceAll(path, "'", `'\''`) + "'"
}

// shellSafe are the characters a shell word holds without quotes.
const shellSafe = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:@%+=,"
