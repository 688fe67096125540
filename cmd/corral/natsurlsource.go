package main

import (
	"strings"

	"github.com/corral-farm/corral/broker"
)

// A password in --nats-url is warned of (broker.Connect) by where the URL came from: the
// command line, where ps shows it to every user, or CORRAL_NATS_URL or the config file, which
// the warning must name instead of --nats-url.

// connectOptions are the connection settings of n (options) with where --nats-url came from.
func (n natsFlags) connectOptions(name string) broker.ConnectOptions {
	o := n.options(name)
	o.URLSource = n.urlSource()
	return o
}

// urlSource names where --nats-url's value came from when not the command line:
// CORRAL_NATS_URL, or the config file's key; "" for the command line (or no value).
func (n natsFlags) urlSource() string {
	if n.of == nil || n.of.onCommandLine["nats-url"] {
		return ""
	}
	src := n.of.sources["nats-url"]
	if env, _, ok := strings.Cut(src, "="); ok && strings.HasPrefix(src, "CORRAL_") {
		return env // its value, password hidden, is the warning's url
	}
	return src
}
