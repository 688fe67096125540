package main

import (
	"context"
)

// runGateway runs a stateless MCP gateway against a NATS.
func runGateway(ctx context.Context, args []string) error {
	f := newFlags("gateway")
	httpAddr := f.String("http", "127.0.0.1:8420", "address of the MCP endpoint, /metrics, /healthz and /readyz")
	nf := f.natsFlags()
	log, stop, err := f.start(args, nil)
	if err != nil || stop {
		return err
	}
	nc, err := connect(nf.options("corral-gateway"), log)
	if err != nil {
		return err
	}
	defer func() { _ = nc.Drain() }()
	gw, err := startGateway(ctx, nc, *httpAddr, newRegistry(), log)
	if err != nil {
		return err
	}
	defer gw.stop()
	log.Info("gateway serving", "mcp", "http://"+gw.addr+"/mcp")
	<-ctx.Done()
	return nil
}
