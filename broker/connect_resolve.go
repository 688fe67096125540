package broker

import (
	"context"
	"math/rand/v2"
	"net"
)

// nats.go looks a server's host name up itself (net.LookupHost), with no context: a DNS server
// that does not answer held a command's connect, and its Ctrl-C, for the resolver's timeouts
// (5 s a try, tried again). Connections made here turn that lookup off (nats.SkipHostLookup)
// and dialHost does it instead, within the dial's context, as nats.go did: every address of the
// name, in random order (clients spread over a cluster's servers), each dialled in turn.

// dialHost dials address (host:port) with d within ctx, its host name looked up within ctx too.
func dialHost(ctx context.Context, d *net.Dialer, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil || net.ParseIP(host) != nil {
		return d.DialContext(ctx, network, address)
	}
	r := d.Resolver
	if r == nil {
		r = net.DefaultResolver
	}
	// LookupIPAddr, not LookupHost: it returns as ctx ends, the lookup left to finish alone;
	// LookupHost waits for the DNS server's answer or its timeout (5 s) whatever ctx does.
	ips, err := r.LookupIPAddr(ctx, host)
	if err != nil {
		// As net.Dialer says it: "dial tcp: lookup HOST: no such host".
		return nil, &net.OpError{Op: "dial", Net: network, Err: err}
	}
	rand.Shuffle(len(ips), func(i, j int) { ips[i], ips[j] = ips[j], ips[i] })
	var c net.Conn
	for _, ip := range ips {
		if c, err = d.DialContext(ctx, network, net.JoinHostPort(ip.String(), port)); err == nil || ctx.Err() != nil {
			break
		}
	}
	return c, err
}
