package main

import (
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
)

// embeddedNATS is corral's own NATS server: corral up's, and corral node --site's.
type embeddedNATS struct {
	server   *server.Server
	url      string
	contexts map[string]string // natscli context file by NATS user
	lock     *dataLock
}

func (e *embeddedNATS) stop() { e.server.Shutdown(); e.server.WaitForShutdown(); e.lock.unlock() }

// connect is how a process's own component (role, node id) reaches the server: in-process.
func (e *embeddedNATS) connect(role broker.Role, node string) broker.ConnectOptions {
	return broker.ConnectOptions{Context: e.contexts[broker.UserName(role, node)], InProcess: e.server}
}

// startEmbeddedNATS starts the embedded NATS on 127.0.0.1:port with its JetStream store in
// data/jetstream and a NATS user per role and for node (passwords made once into data/nats
// and reused, a natscli context for each there): an edge site's when site names one, a hub's
// when hub listens for sites (a leaf user and context of each, leaf-SITE.json, to hand to the
// site).
func startEmbeddedNATS(data string, port int, node string, site siteFlags, hub hubSettings, log *slog.Logger) (*embeddedNATS, error) {
	if err := checkEdge(site, hub); err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(data)
	var fresh *dataStart
	if err == nil {
		fresh, err = makeData(dir)
	}
	if err != nil {
		return nil, fmt.Errorf("data directory: %w", err)
	}
	lock, err := lockData(dir) // before anything in it is read or written
	if err != nil {
		return nil, err
	}
	started := false
	defer func() {
		if !started { // what this start made goes: a retry finds the directory as it was
			fresh.undo(lock)
		}
	}()
	if err := fresh.locked(); err != nil {
		return nil, err
	}
	remote, _ := site.remote()
	listen, _ := hub.leafListen()
	secrets, err := broker.OpenSecrets(filepath.Join(dir, "nats"))
	if err != nil {
		return nil, err
	}
	users, err := broker.FarmUsers([]string{node}, secrets.Password)
	if err != nil {
		return nil, err
	}
	var leafUsers []broker.User
	if listen != nil {
		if leafUsers, err = broker.SiteUsers(hub.sites.names, secrets.Password); err != nil {
			return nil, err
		}
	}
	serverUsers, err := embeddedUsers(users)
	if err != nil {
		return nil, err
	}
	leafServerUsers, err := embeddedLeafUsers(leafUsers, hub.sites.nodes)
	if err != nil {
		return nil, err
	}
	serverUsers = append(serverUsers, leafServerUsers...)
	// Named after the node, unique in the farm: a hub takes one leaf connection per server name.
	ns, err := embedded.Start(embedded.Options{Name: "corral-" + node, Port: port, StoreDir: filepath.Join(dir, "jetstream"),
		Users: serverUsers, Domain: *site.name, LeafRemote: remote, LeafListen: listen}, log)
	if err != nil {
		return nil, err
	}
	e := &embeddedNATS{server: ns, url: ns.ClientURL(), lock: lock}
	if e.contexts, err = secrets.WriteContexts(e.url, "", users); err == nil && listen != nil {
		err = writeLeafContexts(secrets, listen, leafUsers, log)
	}
	if err == nil { // once started: a start that fails leaves the directory as it was
		err = forgetOtherNodes(secrets, node, log)
	}
	if err != nil {
		ns.Shutdown()
		ns.WaitForShutdown()
		return nil, err
	}
	started = true
	return e, nil
}

// embeddedLeafUsers gives each site's leaf user its permissions, limited to the site's nodes
// when --site-nodes names them, as corral nats-auth --site limits them (broker.LeafPermissions).
func embeddedLeafUsers(users []broker.User, scoped []broker.Site) ([]embedded.User, error) {
	out := make([]embedded.User, 0, len(users))
	for _, u := range users {
		var nodes []string
		for _, s := range scoped {
			if s.Name == u.Node {
				nodes = append(nodes, s.Nodes...)
			}
		}
		p, err := broker.LeafPermissions(u.Node, nodes...)
		if err != nil {
			return nil, err
		}
		out = append(out, embedded.User{Name: u.Name, Password: u.Password, Permissions: embedded.Permissions(p), Leaf: true})
	}
	return out, nil
}

// writeLeafContexts writes each site's natscli context for the hub's leaf listener.
func writeLeafContexts(secrets *broker.Secrets, listen *embedded.LeafListenOptions, users []broker.User, log *slog.Logger) error {
	host := listen.Host
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host, _ = os.Hostname() // what sites most likely call this machine; edit the files if not
	}
	url := "nats-leaf://" + net.JoinHostPort(host, strconv.Itoa(listen.Port))
	paths, err := secrets.WriteContexts(url, "", users)
	if err != nil {
		return err
	}
	for _, u := range users {
		log.Info("edge site's leaf context written: hand it to the site (corral up --site NAME --hub-context FILE)", "site", u.Node, "file", paths[u.Name], "url", url)
	}
	if ip := net.ParseIP(listen.Host); ip == nil || !ip.IsLoopback() {
		log.Warn("the leaf listener takes sites beyond this machine without TLS: their passwords cross the network in clear; "+
			"carry the link over a private network or a VPN, or run the hub on a nats-server with leafnodes TLS (docs/operations.md)",
			"listen", net.JoinHostPort(listen.Host, strconv.Itoa(listen.Port)))
	}
	return nil
}
