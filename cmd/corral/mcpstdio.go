package main

import (
	"context"
	"io"
	"net/http"
	"os"

	"github.com/corral-farm/corral/mcp"
)

// runMCPStdio bridges a stdio MCP client to a gateway.
func runMCPStdio(ctx context.Context, args []string) error {
	return bridgeStdio(ctx, args, os.Stdin, os.Stdout)
}

// bridgeStdio is corral mcp-stdio relaying the client's messages on in, and the gateway's on
// out.
func bridgeStdio(ctx context.Context, args []string, in io.Reader, out io.Writer) error {
	f := newFlags("mcp-stdio")
	gateway := f.String("gateway", "http://127.0.0.1:8420/mcp", "the gateway's MCP endpoint")
	tokens := f.tokenFlag()
	log, stop, err := f.start(args, func() error { return tokens.checkGateway(*gateway) })
	if err != nil || stop {
		return err
	}
	url, err := gatewayURL(*gateway)
	if err != nil {
		return err
	}
	headers, err := tokens.headers()
	if err != nil {
		return err
	}
	// Its own holder at the gateway, as corral run and call are (dialGateway): two agents
	// bridged with one token queue for each other's devices, in the protocol revision
	// without sessions too.
	b := &mcp.Bridge{URL: url, Log: log, Headers: mcp.OwnCaller(headers), Hint: func(status int) string {
		switch {
		case status == http.StatusUnauthorized && headers == nil:
			return "give corral mcp-stdio the token: --token-file FILE in its arguments, or CORRAL_TOKEN in its environment (the MCP client's configuration)"
		case status == http.StatusUnauthorized:
			return "the token of corral mcp-stdio (" + tokens.from() + ") is not one the gateway's policy knows: check it, or ask the farm's operator for one"
		case status == http.StatusNotFound || status == http.StatusMethodNotAllowed:
			return "is --gateway the gateway's MCP endpoint, e.g. http://127.0.0.1:8420/mcp?"
		}
		return ""
	}}
	return b.Run(ctx, in, out)
}
