package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/corral-farm/corral/actors"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
)

// runUp runs the whole farm in one process on an embedded NATS server.
func runUp(ctx context.Context, args []string) error {
	f := newFlags("up")
	gf := f.gatewayFlags()
	data := f.String("data", "data", "directory for the embedded NATS server's JetStream data")
	natsPort := f.Int("nats-port", 4222, "port of the embedded NATS server on 127.0.0.1 (-1: any free port)")
	ps := platforms()
	ns := f.nodeFlags(-1, ps)
	log, stop, err := f.start(args, func() error { return errors.Join(gf.check(), ns.check()) })
	if err != nil || stop {
		return err
	}
	dir, err := filepath.Abs(*data)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("data directory: %w", err)
	}
	server, err := embedded.Start(embedded.Options{Port: *natsPort, StoreDir: filepath.Join(dir, "jetstream")}, log)
	if err != nil {
		return err
	}
	defer func() { server.Shutdown(); server.WaitForShutdown() }()
	url := server.ClientURL()

	reg := newRegistry()
	stopNode, err := startNode(ctx, broker.ConnectOptions{URL: url}, ns, actors.NewMetrics(reg), log)
	if err != nil {
		return err
	}
	defer stopNode()
	nc, err := broker.Connect(broker.ConnectOptions{URL: url, Name: "corral-gateway"}, log)
	if err != nil {
		return err
	}
	defer nc.Close()
	gw, err := startGateway(ctx, nc, gf, ps, reg, log)
	if err != nil {
		return err
	}
	defer gw.stop()
	printWelcome(gw.addr, url, *gf.authPolicy != "")
	<-ctx.Done()
	return nil
}

func printWelcome(httpAddr, natsURL string, withAuth bool) {
	mcpURL := "http://" + httpAddr + "/mcp"
	server := map[string]any{"type": "http", "url": mcpURL}
	bridge, auth := "corral mcp-stdio --gateway "+mcpURL, ""
	if withAuth {
		server["headers"] = map[string]string{"Authorization": "Bearer <your token>"}
		bridge += " --token-file FILE   (or set CORRAL_TOKEN)"
		auth = "  auth           a bearer token of the --auth-policy file is required (docs/auth.md)\n"
	}
	cfg, _ := json.MarshalIndent(map[string]any{"mcpServers": map[string]any{"corral": server}}, "", "  ")
	fmt.Printf(`Corral is up.

  MCP endpoint   %s
  metrics        http://%s/metrics
  NATS           %s   (try: nats --server %s micro ls)
%s
Client configuration (streamable HTTP), ready to paste (more clients: docs/clients.md):
%s

For stdio-only clients: %s
Stop with Ctrl-C.
`, mcpURL, httpAddr, natsURL, natsURL, auth, cfg, bridge)
}
