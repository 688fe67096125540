package main

import (
	"context"
	"os"

	"github.com/corral-farm/corral/mcp"
)

// runMCPStdio bridges a stdio MCP client to a gateway.
func runMCPStdio(ctx context.Context, args []string) error {
	f := newFlags("mcp-stdio")
	gateway := f.String("gateway", "http://127.0.0.1:8420/mcp", "the gateway's MCP endpoint")
	tokens := f.tokenFlag()
	log, stop, err := f.start(args, nil)
	if err != nil || stop {
		return err
	}
	headers, err := tokens.headers()
	if err != nil {
		return err
	}
	b := &mcp.Bridge{URL: *gateway, Log: log, Headers: headers}
	return b.Run(ctx, os.Stdin, os.Stdout)
}
