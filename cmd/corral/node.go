package main

import (
	"context"
	"fmt"

	"github.com/corral-farm/corral/actors"
)

// runNode runs an edge node with its devices against a NATS.
func runNode(ctx context.Context, args []string) error {
	f := newFlags("node")
	nf := f.natsFlags()
	ns := f.nodeFlags(0, platforms())
	ns.shared = true // its gateways and callers are elsewhere
	metricsAddr := f.String("metrics", "127.0.0.1:8421", "address of the node's /metrics ('' to serve none)")
	replicas := f.replicasFlag()
	log, stop, err := f.start(args, ns.check)
	if err != nil || stop {
		return err
	}
	if err := applyReplicas(ctx, nf, *replicas, log); err != nil {
		return err
	}
	reg := newRegistry()
	node, err := startClaimedNode(ctx, nf.options(""), ns, actors.NewMetrics(reg), log)
	if err != nil {
		return err
	}
	defer node.stop()
	stopMetrics, err := serveMetrics(*metricsAddr, reg, log)
	if err != nil {
		return err
	}
	defer stopMetrics()
	select {
	case <-ctx.Done():
		return nil
	case <-node.lost:
		return fmt.Errorf("node %s: its id was taken over by another node (this one was silent for too long); stopped", *ns.id)
	}
}
