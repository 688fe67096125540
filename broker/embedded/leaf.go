package embedded

import (
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/corral-farm/corral/internal/redact"
)

// An edge site runs its own server as a leaf node of a hub: its JetStream domain keeps the
// site's streams and buckets working while the uplink is down, and core NATS (requests to its
// nodes, heartbeats, progress) flows over the leaf connection while it is up.

// LeafListenOptions make a server a hub that sites connect to as leaf nodes, each as a user
// of Options.Users that may connect as a leaf only (User.Leaf), limited to what a site may send
// and take (broker.LeafPermissions). nats-server applies no permissions to the users of its
// leaf listener's own list; it does to these.
type LeafListenOptions struct {
	// Host defaults to Options.Host.
	Host string
	// Port listens for the sites' leaf connections; -1 picks a free port and writes it here.
	Port int
}

// LeafRemoteOptions make a server a site: a leaf node of a hub.
type LeafRemoteOptions struct {
	// URLs are the hub's leaf URLs (nats-leaf://hub.example.com:7422).
	URLs []string
	// User and Password of the site's leaf user on the hub, or CredsFile (JWT and nkey seed).
	User, Password string
	CredsFile      string
	// CredentialsFlag names the command-line flag that gave URLs carrying credentials
	// (--hub), "" when none did: the start warns that other users of the machine can read them.
	CredentialsFlag string
	// CA, when set, is the CA the hub's certificate is checked against (TLS).
	CA string
	// Local are subjects that never cross the link, either way: those the site's and the
	// hub's own streams both listen on (broker.LeafLocal).
	Local []string
	// ReconnectEvery is how soon the site tries the hub again after losing it (default 1s).
	ReconnectEvery time.Duration
}

// leafOptions fills so's leaf node options from opts.
func leafOptions(so *server.Options, opts Options) error {
	if opts.Domain != "" {
		if strings.ContainsAny(opts.Domain, ". *>") {
			return fmt.Errorf("JetStream domain %q: use letters, digits, '-' and '_' (it is a subject token)", opts.Domain)
		}
		so.JetStreamDomain = opts.Domain
	}
	if l := opts.LeafListen; l != nil {
		if l.Host == "" {
			l.Host = opts.Host
		}
		if l.Port == -1 {
			port, err := freePort(l.Host)
			if err != nil {
				return err
			}
			l.Port = port
		}
		so.LeafNode.Host, so.LeafNode.Port = l.Host, l.Port
		// Sites reach the hub at the address they were given (a load balancer, a NAT): the
		// listener's own address would lead them past it on their next reconnect.
		so.LeafNode.NoAdvertise = true
		if so.TLSConfig != nil {
			so.LeafNode.TLSConfig, so.LeafNode.TLSTimeout = so.TLSConfig, so.TLSTimeout
		}
	}
	if r := opts.LeafRemote; r != nil {
		if opts.Domain == "" {
			return fmt.Errorf("a site's server needs a JetStream domain of its own (--site): sharing the hub's would merge their streams")
		}
		if len(r.URLs) == 0 {
			return fmt.Errorf("leaf remote: no hub URL (nats-leaf://HUB:7422)")
		}
		remote := &server.RemoteLeafOpts{Credentials: r.CredsFile, DenyExports: r.Local, DenyImports: r.Local}
		for _, raw := range r.URLs {
			u, err := url.Parse(strings.TrimSpace(raw))
			if err != nil || u.Host == "" {
				return fmt.Errorf("leaf remote: hub URL %q: want nats-leaf://HOST:PORT or tls://HOST:PORT", redact.URL(raw))
			}
			if u.User == nil && redact.HasUserinfo(raw) {
				// A ? # or / in the user part ends the host there: NATS would dial a piece of
				// the secret as the hub's name, and log it.
				return fmt.Errorf("leaf remote: hub URL %q: its user part holds a character that ends a URL's host (? # /): "+
					"percent-encode it (%%3F %%23 %%2F), or give the user and password with --hub-context", redact.URL(raw))
			}
			if r.User != "" {
				u.User = url.UserPassword(r.User, r.Password)
			}
			remote.URLs = append(remote.URLs, u)
		}
		if r.CA != "" {
			cfg, err := server.GenTLSConfig(&server.TLSConfigOpts{CaFile: r.CA})
			if err != nil {
				return fmt.Errorf("leaf remote: CA %s: %w", r.CA, err)
			}
			// GenTLSConfig puts the CA where a server checks its clients' certificates; the
			// site is the hub's client, which checks the hub's against RootCAs (nats-server's
			// own config parser does the same for a remote's ca_file).
			cfg.RootCAs = cfg.ClientCAs
			remote.TLS, remote.TLSConfig, remote.TLSTimeout = true, cfg, 5
		}
		so.LeafNode.Remotes = []*server.RemoteLeafOpts{remote}
		so.LeafNode.ReconnectInterval = r.ReconnectEvery
		if so.LeafNode.ReconnectInterval <= 0 {
			so.LeafNode.ReconnectInterval = time.Second
		}
		so.ReconnectErrorReports = leafErrorReports(so.LeafNode.ReconnectInterval)
		so.ConnectErrorReports = so.ReconnectErrorReports
	}
	return nil
}

// leafErrorReportEvery is about how often a site's server says again that it cannot reach its
// hub. nats-server says it at every failed attempt after a cut (ReconnectErrorReports 1), every
// ReconnectEvery for as long as the cut lasts, and only every 3,600 attempts before the first
// connect; corral says a cut once (WatchUplink). A report carries the reason (refused, timed out,
// no such host) and the attempt's number, which tells how long it has lasted.
const leafErrorReportEvery = time.Minute

// leafErrorReports is the number of failed attempts to reach the hub, every interval, at
// which the server reports one: the first, then one every leafErrorReportEvery. nats-server
// waits interval plus up to interval again (jitter) between attempts, so a report comes
// every one to two leafErrorReportEvery.
func leafErrorReports(interval time.Duration) int {
	return max(1, int((leafErrorReportEvery+interval-1)/interval))
}

// freePort returns a port free on host now, for a listener the server opens next.
func freePort(host string) (int, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return 0, fmt.Errorf("leaf port: %w", err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port, nil
}
