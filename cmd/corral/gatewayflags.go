package main

import (
	"github.com/corral-farm/corral/mcp"
)

// gatewayFlags are the flags of the MCP front door, shared by 'corral gateway' and 'corral up'.
type gatewayFlags struct {
	http  *string
	tools *string
}

func (f *flags) gatewayFlags() gatewayFlags {
	return gatewayFlags{
		http:  f.String("http", "127.0.0.1:8420", "address of the MCP endpoint, /metrics, /healthz and /readyz"),
		tools: f.String("tools", "all", "tools that tools/list shows: all, httprunner, physiclaw, phone-agent, or NAME,NAME,..."),
	}
}

// options returns the gateway options these flags choose, or an error naming the bad flag.
func (g gatewayFlags) options() (mcp.Options, error) {
	tools, err := mcp.SelectTools(*g.tools)
	if err != nil {
		return mcp.Options{}, err
	}
	return mcp.Options{Tools: tools}, nil
}

// check validates the flags for --check-config.
func (g gatewayFlags) check() error {
	_, err := g.options()
	return err
}
