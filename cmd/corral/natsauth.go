package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"sort"
	"strings"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/nodes"
	"github.com/corral-farm/corral/vision"
)

// runNATSAuth makes the NATS credentials of a farm of several processes: a user per role (a
// node user per --node), their passwords made once into DIR and reused, the nats-server
// configuration block that gives each its permissions, and a natscli context per user.
func runNATSAuth(_ context.Context, args []string) error {
	f := newFlags("nats-auth")
	dir := f.String("dir", "nats-auth", "directory for the passwords, the server configuration and the contexts (mode 0700)")
	url := f.commaList("url", broker.DefaultURL, "the NATS URL(s) the contexts point at")
	ca := f.String("ca", "", "CA certificate the contexts trust (NATS with TLS); the sites' leaf contexts too with a tls:// --leaf-url")
	var nodes, sites multiFlag
	f.Var(&nodes, "node", "a node id to make a user for (repeat it); * makes one user shared by every node")
	f.Var(&sites, "site", "an edge site and its nodes, NAME=NODE[,NODE...], to make a hub's leaf user for (repeat it; docs/operations.md, "+
		"Edge sites): it takes requests for those nodes only; the server configuration takes leaf connections on --leaf-url's port, "+
		"and the site gets a context and a leafnodes block")
	leafURL := f.String("leaf-url", "nats-leaf://127.0.0.1:7422", "with --site: the hub's leaf URL as the sites reach it; "+
		"tls://HOST:PORT when you give the hub's leafnodes block a certificate (the sites' contexts then trust --ca)")
	var siteNodes []broker.Site
	check := func() (err error) {
		if len(nodes) == 0 {
			return errors.New("usage: corral nats-auth --node ID [--node ID ...] [--site NAME=NODE[,NODE...] ...] [--dir DIR] [--url URL] [--ca FILE]")
		}
		siteNodes, err = checkNATSAuth(*dir, *url, *leafURL, nodes, sites)
		return err
	}
	if _, stop, err := f.start(args, check); err != nil || stop {
		return err
	}
	secrets, err := broker.OpenSecrets(*dir)
	if err != nil {
		return err
	}
	users, err := broker.FarmUsers(nodes, secrets.Password)
	if err != nil {
		return err
	}
	names := make([]string, len(siteNodes))
	for i, s := range siteNodes {
		names[i] = s.Name
	}
	leafUsers, err := broker.SiteUsers(names, secrets.Password)
	if err != nil {
		return err
	}
	conf, err := broker.SiteAuthConfig(append(users, leafUsers...), siteNodes)
	if err != nil {
		return err
	}
	if len(leafUsers) > 0 {
		if conf, err = hubLeafConfig(conf, *leafURL); err != nil {
			return err
		}
	}
	// Vision requests carry images (two of up to 8 MiB, base64, in a diff or a match): the
	// server must take messages as large as the embedded one does.
	conf = fmt.Sprintf("# Vision workers take requests with two images of up to %d MiB each, base64: nats-server's\n"+
		"# default max_payload (1MB) refuses them (docs/operations.md, Vision workers).\nmax_payload: %dMB\n\n",
		vision.MaxImageBytes>>20, embedded.MaxPayload>>20) + conf
	confPath := filepath.Join(*dir, "nats-server-auth.conf")
	if err := writePrivate(confPath, []byte(conf)); err != nil {
		return fmt.Errorf("server configuration: %w", err)
	}
	contexts, err := secrets.WriteContexts(*url, *ca, users)
	if err != nil {
		return err
	}
	fmt.Printf("NATS users of the farm, in %s:\n  server:   %s (or nats-server -js -c %s%s)\n%s",
		*dir, includeHint(confPath), confPath, portFlag(*url), includeRule)
	roles := make([]string, 0, len(contexts))
	for n := range contexts {
		roles = append(roles, n)
	}
	sort.Strings(roles)
	for _, n := range roles {
		fmt.Printf("  %-9s --nats-context %s\n", n+":", contexts[n])
	}
	leafCA, note := leafContextCA(*leafURL, *ca)
	if err := writeSiteFiles(secrets, *leafURL, leafCA, leafUsers); err != nil {
		return err
	}
	if len(leafUsers) > 0 {
		fmt.Print(note)
	}
	removed, err := removeUnissued(*dir, append(users, leafUsers...))
	sayRemoved(removed)
	if err != nil {
		return err
	}
	if err := forgetUnissued(secrets, append(users, leafUsers...)); err != nil {
		return err
	}
	fmt.Println("Give each process only its own context file (vision.json: the vision workers'); passwords are kept and reused when you run this again (those of nodes and sites no longer given are forgotten).")
	return nil
}

// checkNATSAuth refuses (badValue) the values nats-auth would refuse or misread, before it
// makes DIR or writes anything there: the node ids and sites its users are named after, the
// URLs its contexts point at, and an empty --dir (the current directory). It returns the sites.
func checkNATSAuth(dir, natsURL, leafURL string, nodeIDs, siteFlags []string) ([]broker.Site, error) {
	var errs []error
	if dir == "" {
		errs = append(errs, errors.New(`--dir "": give the directory for the passwords, server configuration and contexts, e.g. --dir nats-auth`))
	}
	for _, n := range nodeIDs {
		if n != broker.AnyNode && !nodes.ValidID(n) {
			errs = append(errs, fmt.Errorf("--node %q: use letters, digits, '-' and '_' (a node's --node-id), or * for one user shared by every node", n))
		}
	}
	sites, err := parseSites(siteFlags)
	errs = append(errs, err, nodeAtHubAndSite(nodeIDs, sites))
	if err := checkNATSURLs(natsURL); err != nil {
		errs = append(errs, fmt.Errorf("--url: %w", err))
	}
	if len(sites) > 0 {
		if u, err := url.Parse(leafURL); err != nil || u.Port() == "" {
			errs = append(errs, fmt.Errorf("--leaf-url %q: want nats-leaf://HOST:PORT or tls://HOST:PORT as the sites reach the hub", leafURL))
		}
	}
	return sites, badValue(errors.Join(errs...))
}

// includeHint says how a nats-server config includes the file at path: by its path from the
// config's directory, onto which nats-server joins every include's path, even an absolute one
// (conf/parse.go): "include /abs/path" in /etc/nats/a.conf opens /etc/nats/abs/path.
func includeHint(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	dir := filepath.Dir(abs)
	return fmt.Sprintf("include %s from a nats-server config in %s", filepath.Join(filepath.Base(dir), filepath.Base(abs)), filepath.Dir(dir))
}

// includeRule is nats-server's rule that includeHint follows, said once.
const includeRule = "  (nats-server reads an include's path from its config's directory, even an absolute path: from a config elsewhere, give the path relative to it)\n"

// hubLeafConfig adds to a hub's server configuration the leafnodes block that takes the sites'
// leaf connections on leafURL's port.
func hubLeafConfig(conf, leafURL string) (string, error) {
	u, err := url.Parse(leafURL)
	if err != nil || u.Port() == "" {
		return "", fmt.Errorf("--leaf-url %q: want nats-leaf://HOST:PORT or tls://HOST:PORT as the sites reach the hub", leafURL)
	}
	return conf + fmt.Sprintf("\n# Edge sites connect here, each as its leaf user above (docs/operations.md, Edge sites).\n"+
		"leafnodes {\n  port: %s\n  # The address sites were given (a load balancer, a NAT), not this server's own.\n  no_advertise: true\n%s}\n",
		u.Port(), leafTLSConfigLine(leafURL)), nil
}

// writeSiteFiles writes, for each site's leaf user, what the site needs: a natscli context for
// corral up --site / corral node --site (--hub-context), and a leafnodes block for a standalone
// nats-server.
func writeSiteFiles(secrets *broker.Secrets, leafURL, ca string, users []broker.User) error {
	if len(users) == 0 {
		return nil
	}
	contexts, err := secrets.WriteContexts(leafURL, ca, users)
	if err != nil {
		return err
	}
	fmt.Println("Edge sites (give each only its own files):")
	for _, u := range users {
		block, err := broker.LeafRemoteConfig([]string{leafURL}, u)
		if err != nil {
			return err
		}
		path := filepath.Join(secrets.Dir(), u.Name+"-remote.conf")
		if err := writePrivate(path, []byte(block)); err != nil {
			return fmt.Errorf("site %s: %w", u.Node, err)
		}
		fmt.Printf("  %-9s corral up --site %s --hub-context %s   (or, with jetstream { domain: %s }, %s)\n",
			u.Node+":", u.Node, contexts[u.Name], u.Node, includeHint(path))
	}
	return nil
}

// multiFlag is a flag that may be repeated.
type multiFlag []string

func (m *multiFlag) String() string     { return fmt.Sprint(*m) }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// portFlag is the nats-server flag that makes a server started with the configuration alone
// listen where the contexts point (--url), when that is not nats-server's default port: the
// configuration has no listen of its own, since it is also included in a server's config,
// whose listen it must not override. "" when the URLs name no single other port.
func portFlag(urls string) string {
	port := ""
	for _, raw := range strings.Split(urls, ",") {
		u, err := url.Parse(strings.TrimSpace(raw))
		if err != nil {
			return ""
		}
		p := u.Port()
		if p == "" {
			p = "4222"
		}
		if port != "" && p != port {
			return "" // a cluster's servers: each has its own
		}
		port = p
	}
	if port == "" || port == "4222" {
		return ""
	}
	return " -p " + port
}
