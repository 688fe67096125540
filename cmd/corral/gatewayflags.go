package main

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/corral-farm/corral/broker"
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
	maxBody        *string
	readTimeout    *time.Duration
	idleTimeout    *time.Duration
	maxConns       *int
	sessionTTL     *time.Duration
	maxSessions    *int
	perPrincipal   *int
	sessionKeys    *string
	shotsMaxAge    *time.Duration
	sizes          storeSizes
	sites          *string
	siteNodes      *siteNodesFlag
	drain          drainFlags
}

// storeSizes are the flags that size the farm's stores: corral gateway and corral up size
// them, corral node those it creates because no gateway has yet.
type storeSizes struct {
	shotsMaxBytes    *string
	eventsMaxBytes   *string
	sessionsMaxBytes *string
}

// storeSizes defines --screenshots-max-bytes, --events-max-bytes and --sessions-max-bytes;
// note ends their help.
func (f *flags) storeSizes(note string) storeSizes {
	return storeSizes{
		shotsMaxBytes: f.String("screenshots-max-bytes", broker.FormatSize(broker.DefaultScreenshotsMaxBytes), "size of the farm's "+
			"screenshot store, e.g. 1GiB or 200MiB; when full, the oldest screenshots are dropped for new ones; JetStream "+
			"reserves it on the NATS server's disk"+note),
		eventsMaxBytes: f.String("events-max-bytes", broker.FormatSize(broker.DefaultEventsMaxBytes), "size of the farm's event stream "+
			"("+broker.EventStream+": device, lease and node events, task records), e.g. 1GiB or 100MiB; when full, the oldest "+
			"events are dropped; JetStream reserves it on the NATS server's disk"+note),
		sessionsMaxBytes: f.String("sessions-max-bytes", broker.FormatSize(broker.DefaultSessionsMaxBytes), "size of the farm's "+
			"MCP session bucket ("+broker.SessionBucket+": each session's device, leases and latest task, kept 24 h), e.g. 128MiB; "+
			"when full, new sessions' writes are refused (select_device says so) until entries expire; JetStream reserves it "+
			"on the NATS server's disk"+note),
	}
}

// parse returns the stores' sizes in bytes (the rest of the options unset), or a refusal
// (badValue) naming the bad flag.
func (s storeSizes) parse() (broker.StoreOptions, error) {
	shots, err := parseSize(*s.shotsMaxBytes)
	if err != nil || shots < 1<<20 {
		return broker.StoreOptions{}, badValue(fmt.Errorf("--screenshots-max-bytes %q: give a size of at least 1MiB, e.g. 1GiB or 200MiB", *s.shotsMaxBytes))
	}
	events, err := parseSize(*s.eventsMaxBytes)
	if err != nil || events < 1<<20 {
		return broker.StoreOptions{}, badValue(fmt.Errorf("--events-max-bytes %q: give a size of at least 1MiB, e.g. 1GiB or 100MiB", *s.eventsMaxBytes))
	}
	sessions, err := parseSize(*s.sessionsMaxBytes)
	if err != nil || sessions < 1<<20 {
		return broker.StoreOptions{}, badValue(fmt.Errorf("--sessions-max-bytes %q: give a size of at least 1MiB, e.g. 128MiB or 1GiB", *s.sessionsMaxBytes))
	}
	return broker.StoreOptions{EventsMaxBytes: events, ScreenshotsMaxBytes: shots, SessionsMaxBytes: sessions}, nil
}

func (f *flags) gatewayFlags() gatewayFlags {
	siteNodes := &siteNodesFlag{}
	f.Var(siteNodes, "site-nodes", "an edge site of --sites and its node ids, NAME=NODE[,NODE...] (repeat it; CORRAL_SITE_NODES: "+
		"a=n1,n2;b=n3): the hub takes only those nodes' registry entries, leases and events from the site, and corral up "+
		"--leaf-listen's leaf user of the site takes requests for, and speaks as, those nodes only; a site without it is trusted "+
		"with any node's (docs/operations.md, Edge sites)")
	return gatewayFlags{
		http:  f.String("http", "127.0.0.1:8420", "address of the MCP endpoint, /metrics, /healthz and /readyz"),
		tools: f.commaList("tools", "all", "tools that tools/list shows: all, httprunner, physiclaw, phone-agent, or NAME,NAME,..."),
		authPolicy: f.String("auth-policy", "", "policy file (YAML or JSON) of bearer tokens, each with the device tags and tools "+
			"its principal may use (docs/auth.md); empty: no auth, every caller is \"anonymous\""),
		allowedOrigins: f.commaList("allowed-origins", "", "hosts and origins allowed besides loopback in the Host (on a loopback listener) "+
			"and Origin headers, comma-separated: host, host:port or https://origin; * turns the check off"),
		insecureNoAuth: f.Bool("insecure-no-auth", false, "serve --http on a non-loopback address without --auth-policy "+
			"(only when something in front already authenticates callers)"),
		rateLimit: f.String("rate-limit", "50/s", "calls per device per gateway, e.g. 50/s or 600/m; off (or 0): no limit"),
		rateBurst: f.Int("rate-burst", 100, "calls a device may take at once above --rate-limit after a quiet spell"),
		rateQueue: f.Int("rate-queue", 64, "calls of one device waiting or running through this gateway; more are refused "+
			"with a retry-after answer (0: no cap)"),
		maxBody: f.String("max-body", "4MiB", "largest /mcp request body, e.g. 4MiB, 512KiB or bytes; larger ones get 413 before they are read"),
		readTimeout: f.Duration("read-timeout", mcp.DefaultReadTimeout, "time a request has to arrive whole, headers and body; "+
			"a stalled body is cut off after it (answers may stream longer)"),
		idleTimeout: f.Duration("idle-timeout", mcp.DefaultIdleTimeout, "keep-alive connections idle this long are closed"),
		maxConns:    f.Int("max-conns", mcp.DefaultMaxConns, "connections served at once; more wait to be accepted (0: no cap)"),
		sessionTTL: f.Duration("session-ttl", mcp.DefaultSessionTTL, "a protocol session idle this long is forgotten by this gateway "+
			"(its id still works for its principal, with nothing kept but its selected device)"),
		maxSessions: f.Int("max-sessions", mcp.DefaultMaxSessions, "live protocol sessions of one principal on this gateway; "+
			"opening another forgets its least recently used idle one"),
		perPrincipal: f.Int("sessions-per-principal", 0, "protocol sessions of one principal the farm keeps in NATS (their "+
			"selected device and leases), across gateways; a new one past it forgets its oldest, whose next call says so "+
			"(0: --sessions-max-bytes / 2 / principals / 1KiB, so that no principal can fill the bucket for the others)"),
		sessionKeys: f.String("session-keys", string(mcp.SessionKeysPrincipal), "key of the session ids and console cookies "+
			"this gateway issues: principal (each principal's own, with the farm's gateway secret) or farm (the farm-wide key of Corral "+
			"before per-principal keys, which holds no secret: only while gateways of that version still serve during a roll, "+
			"docs/helm.md, Upgrading; it takes each principal's own too)"),
		shotsMaxAge: f.Duration("screenshots-max-age", broker.DefaultScreenshotsMaxAge, "agent task screenshots older than this "+
			"are dropped from the farm's object store ("+broker.ScreenshotBucket+")"),
		sizes: f.storeSizes(""),
		sites: f.commaList("sites", "", "edge sites of this hub, comma-separated (their JetStream domains): the hub's stores aggregate "+
			"theirs and its gateways watch their links (docs/operations.md, Edge sites); empty keeps the sites the stores have"),
		siteNodes: siteNodes,
		drain:     f.drainFlags(),
	}
}

// configList: a --config file may give --site-nodes as a list, ["a=n1,n2", b=n3], or as a set
// of keys, {a: [n1, n2], b: n3} (setFromFile, config.go), besides one text, "a=n1,n2;b=n3".
func (*siteNodesFlag) configList() bool { return true }

// siteList returns --sites as a list (nil when empty), with the nodes --site-nodes gives.
func (g gatewayFlags) siteList() hubSites {
	return hubSites{names: splitList(*g.sites), nodes: g.siteNodes.sites}
}

// stores returns the retention of the stores the gateway keeps.
func (g gatewayFlags) stores() (broker.StoreOptions, error) {
	o, err := g.sizes.parse()
	if err != nil {
		return broker.StoreOptions{}, err
	}
	if *g.shotsMaxAge < time.Minute {
		return broker.StoreOptions{}, badValue(fmt.Errorf("--screenshots-max-age %s: give at least a minute, e.g. 168h for a week", *g.shotsMaxAge))
	}
	sites := g.siteList()
	for _, site := range sites.names {
		if !broker.ValidSite(site) {
			return broker.StoreOptions{}, badValue(fmt.Errorf("--sites %q: site %q: use letters, digits, '-' and '_' (each is a site's JetStream domain)", *g.sites, site))
		}
	}
	if err := sites.check(); err != nil {
		return broker.StoreOptions{}, err
	}
	o.ScreenshotsMaxAge, o.Sites, o.SiteNodes = *g.shotsMaxAge, sites.names, sites.nodes
	return o, nil
}

// options returns the gateway options these flags choose, or an error naming the bad flag: a
// refusal of a value (badValue), or the policy file's error.
func (g gatewayFlags) options() (mcp.Options, error) {
	tools, err := mcp.SelectTools(*g.tools)
	if err != nil {
		return mcp.Options{}, badValue(err)
	}
	opts := mcp.Options{Tools: tools}
	if err := checkListen("--http", *g.http, "127.0.0.1:8420"); err != nil {
		return mcp.Options{}, err
	}
	if *g.authPolicy != "" {
		if opts.Policy, err = mcp.LoadPolicy(*g.authPolicy); err != nil {
			return mcp.Options{}, fmt.Errorf("--auth-policy: %w", err)
		}
	} else if !loopbackAddr(*g.http) && !*g.insecureNoAuth {
		return mcp.Options{}, badValue(fmt.Errorf("--http %s listens beyond this machine, and without --auth-policy anyone who reaches it "+
			"can drive every device: give --auth-policy FILE (docs/auth.md), listen on 127.0.0.1, or, if a proxy or network "+
			"policy in front already authenticates callers, pass --insecure-no-auth", *g.http))
	}
	for _, o := range strings.Split(*g.allowedOrigins, ",") {
		if o = strings.TrimSpace(o); o != "" {
			opts.AllowedOrigins = append(opts.AllowedOrigins, o)
		}
	}
	if err := mcp.ValidateOrigins(opts.AllowedOrigins); err != nil {
		return mcp.Options{}, badValue(err)
	}
	if opts.RateLimit.PerSecond, err = mcp.ParseRate(*g.rateLimit); err != nil {
		return mcp.Options{}, badValue(fmt.Errorf("--rate-limit: %w", err))
	}
	if r := strings.ToLower(strings.TrimSpace(*g.rateLimit)); opts.RateLimit.PerSecond == 0 && r != "" && r != "off" && r != "0" {
		return mcp.Options{}, badValue(fmt.Errorf("--rate-limit %s: a rate of zero would let no call through; give a positive rate, e.g. 50/s or 600/m, "+
			"or off (or 0) for no limit", *g.rateLimit))
	}
	if *g.rateBurst < 0 {
		return mcp.Options{}, badValue(fmt.Errorf("--rate-burst %d: give the calls a device may take at once, 0 or more, e.g. 100", *g.rateBurst))
	}
	if *g.rateQueue < 0 {
		return mcp.Options{}, badValue(fmt.Errorf("--rate-queue %d: give the calls of one device that may wait, 0 (no cap) or more, e.g. 64", *g.rateQueue))
	}
	opts.RateLimit.Burst, opts.RateLimit.MaxWaiting = *g.rateBurst, *g.rateQueue
	if opts.SessionKeys, err = mcp.ParseSessionKeys(*g.sessionKeys); err != nil {
		return mcp.Options{}, badValue(fmt.Errorf("--session-keys %w", err))
	}
	if opts.Limits, err = g.limits(); err != nil {
		return mcp.Options{}, err
	}
	if opts.Limits.SessionsPerPrincipal == 0 { // the bucket's size and the policy's principals choose it
		sizes, err := g.sizes.parse()
		if err != nil {
			return mcp.Options{}, err
		}
		principals := 1 // anonymous
		if opts.Policy != nil {
			principals = len(opts.Policy.Principals())
		}
		opts.Limits.SessionsPerPrincipal = mcp.SessionsPerPrincipalFor(sizes.SessionsMaxBytes, principals)
	}
	return opts, nil
}

// limits returns the front door's bounds these flags choose, or a refusal (badValue) naming
// the bad flag.
func (g gatewayFlags) limits() (mcp.Limits, error) {
	body, err := parseSize(*g.maxBody)
	if err != nil {
		return mcp.Limits{}, badValue(fmt.Errorf("--max-body %q: give a positive number of bytes, e.g. 4MiB, 512KiB or 1048576", *g.maxBody))
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"--read-timeout", *g.readTimeout}, {"--idle-timeout", *g.idleTimeout}, {"--session-ttl", *g.sessionTTL}} {
		if d.v <= 0 {
			return mcp.Limits{}, badValue(fmt.Errorf("%s %s: give a positive duration, e.g. 30s or 2m", d.name, d.v))
		}
	}
	if *g.maxConns < 0 {
		return mcp.Limits{}, badValue(fmt.Errorf("--max-conns %d: give the connections served at once, 0 (no cap) or more, e.g. 1024", *g.maxConns))
	}
	if *g.perPrincipal < 0 {
		return mcp.Limits{}, badValue(fmt.Errorf("--sessions-per-principal %d: give the sessions one principal keeps in NATS, 1 or more, "+
			"e.g. 10000, or 0 to size it from --sessions-max-bytes", *g.perPrincipal))
	}
	if *g.maxSessions < 1 {
		return mcp.Limits{}, badValue(fmt.Errorf("--max-sessions %d: give the live sessions of one principal, 1 or more, e.g. 1000", *g.maxSessions))
	}
	l := mcp.Limits{MaxBody: body, ReadTimeout: *g.readTimeout, IdleTimeout: *g.idleTimeout, MaxConns: *g.maxConns,
		SessionTTL: *g.sessionTTL, MaxSessions: *g.maxSessions, SessionsPerPrincipal: *g.perPrincipal}
	if l.MaxConns == 0 {
		l.MaxConns = -1 // Limits: below zero is no cap, zero the default
	}
	return l, nil
}

// parseSize reads a byte count: 4194304, 1GiB, 4MiB, 4M, 512KiB, 512K (powers of 1024).
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10},
		{"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}} {
		if strings.HasSuffix(strings.ToUpper(t), strings.ToUpper(u.suffix)) {
			t, mult = strings.TrimSpace(t[:len(t)-len(u.suffix)]), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 1 || n > (1<<40)/mult {
		return 0, fmt.Errorf("size %q: want a positive number of bytes, e.g. 4MiB, 512KiB or 1048576", s)
	}
	return n * mult, nil
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
	if _, err := g.options(); err != nil {
		return err
	}
	if err := g.drain.check(); err != nil {
		return err
	}
	_, err := g.stores()
	return err
}
