package main

import (
	"fmt"
	"net"
	"net/netip"
	"strings"

	"github.com/corral-farm/corral/mcp"
)

// gatewayFlags are the flags of the MCP front door, shared by 'corral gateway' and 'corral up'.
type gatewayFlags struct {
	http           *string
	tools          *string
	authPolicy     *string
	allowedOrigins *string
	insecureNoAuth *bool
	rateLimit      *string
	rateBurst      *int
	rateQueue      *int
}

func (f *flags) gatewayFlags() gatewayFlags {
	return gatewayFlags{
		http:  f.String("http", "127.0.0.1:8420", "address of the MCP endpoint, /metrics, /healthz and /readyz"),
		tools: f.String("tools", "all", "tools that tools/list shows: all, httprunner, physiclaw, phone-agent, or NAME,NAME,..."),
		authPolicy: f.String("auth-policy", "", "policy file (YAML or JSON) of bearer tokens, each with the device tags and tools "+
			"its principal may use (docs/auth.md); empty: no auth, every caller is \"anonymous\""),
		allowedOrigins: f.String("allowed-origins", "", "hosts and origins allowed besides loopback in the Host (on a loopback listener) "+
			"and Origin headers, comma-separated: host, host:port or https://origin; * turns the check off"),
		insecureNoAuth: f.Bool("insecure-no-auth", false, "serve --http on a non-loopback address without --auth-policy "+
			"(only when something in front already authenticates callers)"),
		rateLimit: f.String("rate-limit", "50/s", "calls per device per gateway, e.g. 50/s or 600/m; off: none"),
		rateBurst: f.Int("rate-burst", 100, "calls a device may take at once above --rate-limit after a quiet spell"),
		rateQueue: f.Int("rate-queue", 64, "calls of one device waiting or running through this gateway; more are refused "+
			"with a retry-after answer (0: no cap)"),
	}
}

// options returns the gateway options these flags choose, or an error naming the bad flag.
func (g gatewayFlags) options() (mcp.Options, error) {
	tools, err := mcp.SelectTools(*g.tools)
	if err != nil {
		return mcp.Options{}, err
	}
	opts := mcp.Options{Tools: tools}
	if *g.authPolicy != "" {
		if opts.Policy, err = mcp.LoadPolicy(*g.authPolicy); err != nil {
			return mcp.Options{}, fmt.Errorf("--auth-policy: %w", err)
		}
	} else if !loopbackAddr(*g.http) && !*g.insecureNoAuth {
		return mcp.Options{}, fmt.Errorf("--http %s listens beyond this machine, and without --auth-policy anyone who reaches it "+
			"can drive every device: give --auth-policy FILE (docs/auth.md), listen on 127.0.0.1, or, if a proxy or network "+
			"policy in front already authenticates callers, pass --insecure-no-auth", *g.http)
	}
	for _, o := range strings.Split(*g.allowedOrigins, ",") {
		if o = strings.TrimSpace(o); o != "" {
			opts.AllowedOrigins = append(opts.AllowedOrigins, o)
		}
	}
	if err := mcp.ValidateOrigins(opts.AllowedOrigins); err != nil {
		return mcp.Options{}, err
	}
	if opts.RateLimit.PerSecond, err = mcp.ParseRate(*g.rateLimit); err != nil {
		return mcp.Options{}, fmt.Errorf("--rate-limit: %w", err)
	}
	if *g.rateBurst < 0 || *g.rateQueue < 0 {
		return mcp.Options{}, fmt.Errorf("--rate-burst %d, --rate-queue %d: neither may be negative (0 for --rate-queue: no cap)", *g.rateBurst, *g.rateQueue)
	}
	opts.RateLimit.Burst, opts.RateLimit.MaxWaiting = *g.rateBurst, *g.rateQueue
	return opts, nil
}

// loopbackAddr reports whether a listen address only accepts connections from this machine:
// localhost or a loopback IP. An empty host (":8420"), 0.0.0.0 or any other name is not.
func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// check validates the flags for --check-config, the policy file included.
func (g gatewayFlags) check() error {
	_, err := g.options()
	return err
}
