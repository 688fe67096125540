package main

import (
	"context"
	"fmt"
	"os"

	"github.com/corral-farm/corral/mcp"
)

// runMCPStdio bridges a stdio MCP client to a gateway.
func runMCPStdio(ctx context.Context, args []string) error {
	f := newFlags("mcp-stdio")
	gateway := f.String("gateway", "http://127.0.0.1:8420/mcp", "the gateway's MCP endpoint")
	if err := f.parse(args); err != nil {
		return err
	}
	log, err := f.logger()
	if err != nil {
		return err
	}
	if *f.checkConfig {
		fmt.Fprintln(os.Stderr, "configuration ok")
		return nil
	}
	b := &mcp.Bridge{URL: *gateway, Log: log}
	return b.Run(ctx, os.Stdin, os.Stdout)
}
