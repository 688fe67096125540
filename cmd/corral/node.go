package main

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"syscall"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
)

// runNode runs an edge node with its devices against a NATS, or, with --site, on an edge
// site's NATS of its own.
func runNode(ctx context.Context, args []string) error {
	f := newFlags("node")
	nf := f.natsFlags()
	ns := f.nodeFlags(0, platforms())
	ns.shared = true // its gateways and callers are elsewhere
	metricsAddr := f.String("metrics", "127.0.0.1:8421", "address of the node's /metrics ('' to serve none)")
	replicas := f.nodeReplicasFlag()
	// A node started before any gateway creates the stores; one that exists keeps its size
	// and its replicas.
	sizes := f.storeSizes("; a node uses it only when it creates the store (a gateway sizes stores that exist)")
	site := f.siteFlags()
	data := f.String("data", "data", "with --site: directory for the site's embedded NATS (JetStream data, credentials in nats/)")
	natsPort := f.Int("nats-port", 4222, "with --site: port of the site's embedded NATS on 127.0.0.1, for the site's gateway and "+
		"operators (-1: any free port)")
	log, stop, err := f.start(args, func() error {
		var sizesErr error
		ns.sizes, sizesErr = sizes.parse()
		errs := []error{ns.check(), checkLeaseFlags(f, ns), checkEdge(site, hubSettings{}), sizesErr, checkReplicas(*replicas)}
		if *metricsAddr != "" {
			errs = append(errs, checkListen("--metrics", *metricsAddr, "127.0.0.1:8421"))
		}
		if *site.name != "" {
			errs = append(errs, checkData(*data), checkNATSPort(*natsPort), siteOwnNATS(nf))
		} else {
			errs = append(errs, checkNATS(nf, nf.connectOptions(""))) // with --site, the node uses its own NATS
		}
		return errors.Join(errs...)
	})
	if err != nil || stop {
		return err
	}
	reg := newRegistry()
	// The --metrics address is taken before anything reaches NATS: one in use stops the node
	// before it claims its id, not after, when its devices were registered and its claim made.
	// Until the node has started, /readyz answers that it is starting.
	var started atomic.Pointer[runningNode]
	stopMetrics, err := serveMetrics(*metricsAddr, reg, log, func() error {
		if n := started.Load(); n != nil {
			return n.ready()
		}
		return errors.New("node starting")
	})
	if err != nil {
		return metricsListenHint(err, "corral node")
	}
	defer stopMetrics()
	conn := nf.connectOptions("")
	if *site.name != "" {
		natsd, err := startEmbeddedNATS(*data, *natsPort, *ns.id, site, hubSettings{}, log)
		if err != nil {
			return err
		}
		defer natsd.stop()
		embedded.WatchUplink(ctx, natsd.server, reg, log)
		conn = natsd.connect(broker.RoleNode, *ns.id)
		log.Info("edge site's NATS serving", "site", *site.name, "url", natsd.url,
			"gateway_context", natsd.contexts[broker.UserName(broker.RoleGateway, "")])
	} else {
		created := ns.sizes
		created.Replicas = *replicas
		if err := createNodeStores(ctx, nf, created, log); err != nil {
			return err
		}
	}
	node, err := startClaimedNode(ctx, conn, ns, reg, log)
	if err != nil {
		return withNodeUser(err, *ns.id)
	}
	defer node.stop()
	started.Store(node)
	select {
	case <-ctx.Done():
		return nil
	case <-node.lost:
		return fmt.Errorf("node %s: its id was taken over by another node (this one was silent for too long); stopped", *ns.id)
	}
}

// siteOwnNATS refuses (badValue) --nats-url and --nats-context with --site: the site's node
// runs its own NATS, which they would not reach.
func siteOwnNATS(nf natsFlags) error {
	if *nf.url == "" && *nf.context == "" {
		return nil
	}
	return badValue(errors.New("--site runs the site's own NATS: drop --nats-url and --nats-context (the site's gateway connects to it)"))
}

// withNodeUser is withRole for corral node, whose NATS user is its own id's: another node's
// context has the node role too, and NATS refuses it this id's claim.
func withNodeUser(err error, id string) error {
	var r *broker.RefusedError
	user := broker.UserName(broker.RoleNode, id)
	if !errors.As(err, &r) || r.Stale || r.Role != broker.RoleNode || r.User == user {
		return withRole(err, "node", broker.RoleNode, id)
	}
	return fmt.Errorf("%w. corral node --node-id %s runs as the NATS user %s: give --nats-context with its context, %s.json (%s)",
		err, id, user, user, whereContextIs(broker.RoleNode, id))
}

// metricsListenHint adds to a --metrics address in use what corral up adds to its --http one:
// the listener's words alone ("bind: address already in use") name no flag.
func metricsListenHint(err error, command string) error {
	if errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("%w (is another %s running? choose another address with --metrics, or --metrics '' for none)", err, command)
	}
	return err
}
