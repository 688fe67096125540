package main

import (
	"context"
	"errors"

	"github.com/corral-farm/corral/broker"
)

// runGateway runs a stateless MCP gateway against a NATS.
func runGateway(ctx context.Context, args []string) error {
	f := newFlags("gateway")
	gf := f.gatewayFlags()
	nf := f.natsFlags()
	replicas := f.replicasFlag()
	log, stop, err := f.start(args, func() error {
		return errors.Join(gf.check(), checkReplicas(*replicas), checkNATS(nf, nf.connectOptions("corral-gateway")))
	})
	if err != nil || stop {
		return err
	}
	// The replicas are applied with the stores' sizes: applied with the default sizes, a store
	// too large for the NATS server's storage was refused whatever --*-max-bytes said.
	retention, err := gf.stores()
	if err != nil {
		return err
	}
	if err := applyReplicas(ctx, nf, *replicas, retention, log); err != nil {
		return err
	}
	nc, err := connect(ctx, nf.connectOptions("corral-gateway"), log)
	if err != nil {
		return err
	}
	defer func() { _ = nc.Drain() }()
	reg := newRegistry()
	gw, err := startGateway(ctx, nc, gf, platforms(), reg, log)
	if err != nil {
		return withRole(err, "gateway", broker.RoleGateway, "")
	}
	defer gw.stop()
	log.Info("gateway serving", "mcp", "http://"+gw.addr+"/mcp")
	<-ctx.Done()
	return nil
}
