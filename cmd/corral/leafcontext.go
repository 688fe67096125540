package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/corral-farm/corral/broker"
)

// A hub's corral up --leaf-listen writes DATA/nats/leaf-SITE.json beside the role contexts:
// the context a site's NATS server joins the hub's leaf node port with (corral up --site SITE
// --hub-context FILE). Given to a command (NATS_CONTEXT=DATA/nats/leaf-lab1.json corral
// devices), it failed with nats.go's "attempted to connect to leaf node port" and the hint of a
// server that is not running. A command now says what the context is for, and which to give.

// leafPortRefused is what a NATS server answers a client that dialled its leaf node port.
const leafPortRefused = "attempted to connect to leaf node port"

// leafContextRefusal refuses, before dialling, options that log in as a site's leaf user (a
// leaf context): no command can use them. nil for any other (connect tells what is wrong).
func leafContextRefusal(o broker.ConnectOptions) error {
	r, err := o.Resolved()
	if err != nil || !isLeafUser(r.User) {
		return nil
	}
	site := "every site's"
	if name, ok := strings.CutPrefix(r.User, broker.LeafUserName("")+"-"); ok {
		site = "site " + name + "'s"
	}
	what := "NATS user " + r.User
	if r.Context != "" && o.User == "" {
		what = "NATS context " + r.Context
	}
	return fmt.Errorf("%s is %s leaf context (NATS user %s, for the hub's leaf node port %s): a site's NATS server joins the hub "+
		"with it (corral up --site SITE --hub-context FILE), and no command can connect with it; %s",
		what, site, r.User, broker.RedactURLs(r.URL), commandContextHint(r.Context))
}

// isLeafUser says whether user is a hub's leaf user of a site (broker.LeafUserName).
func isLeafUser(user string) bool {
	leaf := broker.LeafUserName("")
	return user == leaf || strings.HasPrefix(user, leaf+"-")
}

// leafPortHint adds to err, when a command dialled a hub's leaf node port with other
// credentials (--nats-url nats://HUB:7422), that the port is the sites' and which to dial.
func leafPortHint(err error) error {
	if err == nil || !strings.Contains(err.Error(), leafPortRefused) {
		return err
	}
	return fmt.Errorf("%w; that port is a hub's leaf node port, which sites' NATS servers join, not commands: "+
		"give the hub's client port (corral up --nats-port, 4222 by default), as its DATA/nats/admin.json context does", err)
}

// commandContextHint names the context a command takes: the role contexts beside leafContext
// (the directory corral up wrote it to) when they are there.
func commandContextHint(leafContext string) string {
	dir := filepath.Dir(leafContext)
	admin, operator := filepath.Join(dir, "admin.json"), filepath.Join(dir, "operator.json")
	if _, err := os.Stat(admin); leafContext != "" && err == nil {
		return fmt.Sprintf("give the admin's context, --nats-context %s (or %s, to read only), or set NATS_CONTEXT to it", admin, operator)
	}
	return "give the admin's context of the farm's corral up, --nats-context DATA/nats/admin.json (or operator.json, " +
		"to read only; corral nats-auth writes DIR/admin.json), or set NATS_CONTEXT to it"
}
