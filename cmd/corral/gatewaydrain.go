package main

import (
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"
)

// A stopping gateway drains (Kubernetes' rolling update, docs/helm.md): at the signal its
// /readyz turns 503 so that the Service stops sending it new connections, it keeps accepting
// for --drain-delay (requests sent before the endpoint is removed are served, not refused),
// then closes its listener and gives the calls in flight what is left of --drain-timeout,
// counted from the signal, before it cuts them. A second signal stops it at once (main.go).

// drainFlags are --drain-timeout and --drain-delay, of corral gateway and corral up.
type drainFlags struct {
	timeout *time.Duration
	delay   *time.Duration
}

// defaultDrainTimeout fits the chart's terminationGracePeriodSeconds (30) less a margin for
// the flush and the NATS drain that follow.
const defaultDrainTimeout = 25 * time.Second

func (f *flags) drainFlags() drainFlags {
	return drainFlags{
		timeout: f.Duration("drain-timeout", defaultDrainTimeout, "on SIGTERM or Ctrl-C, the time the calls in flight have to finish, "+
			"counted from the signal; those still running then are cut (keep it below the pod's terminationGracePeriodSeconds)"),
		delay: f.Duration("drain-delay", 0, "on SIGTERM or Ctrl-C, keep accepting connections this long (within --drain-timeout) while "+
			"/readyz answers 503, so that a load balancer stops sending here before the listener closes; e.g. 5s behind a Kubernetes Service"),
	}
}

// upDrainTimeoutUsage is --drain-timeout's help in corral up: its node is in the same process
// and stops at once at the signal (docs/operations.md, Stop a gateway), so a call in flight
// does not get the time to finish, only to be answered.
const upDrainTimeoutUsage = "on SIGTERM or Ctrl-C, the time the calls in flight have to get their answers, counted from the " +
	"signal; the node of this process stops at once, so a call still running on a device is answered that its node is shutting down"

// inOneProcess says in --drain-timeout's help what it gives when the node runs in the same
// process as the gateway (corral up).
func (f *flags) inOneProcess() {
	f.Lookup("drain-timeout").Usage = upDrainTimeoutUsage
}

// check refuses (badValue) a negative duration, and a delay beyond the timeout.
func (d drainFlags) check() error {
	if *d.timeout < 0 {
		return badValue(fmt.Errorf("--drain-timeout %s: give a duration of 0 (no wait) or more, e.g. 25s", *d.timeout))
	}
	if *d.delay < 0 {
		return badValue(fmt.Errorf("--drain-delay %s: give a duration of 0 (no wait) or more, e.g. 5s", *d.delay))
	}
	if *d.delay > *d.timeout {
		return badValue(fmt.Errorf("--drain-delay %s is longer than --drain-timeout %s: the delay is part of the drain; give a shorter delay, "+
			"e.g. 5s, or a longer timeout", *d.delay, *d.timeout))
	}
	return nil
}

// errDraining is /readyz's answer while the gateway drains.
var errDraining = errors.New("shutting down: draining the calls in flight")

// drainMark says whether the gateway drains. Its zero value does not.
type drainMark struct{ on atomic.Bool }

// ready is the gateway's readiness check: not ready while draining, else next's (nil: ready).
func (d *drainMark) ready(next func() error) func() error {
	return func() error {
		if d.on.Load() {
			return errDraining
		}
		if next == nil {
			return nil
		}
		return next()
	}
}

// refusingNewSessions answers a request that would open a protocol session (a POST to /mcp
// without an Mcp-Session-Id) with 503 and Retry-After while draining: the client connects
// again, and the Service sends it to another gateway. Requests of open sessions are served.
func (d *drainMark) refusingNewSessions(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if d.on.Load() && r.Method == http.MethodPost && r.URL.Path == "/mcp" && r.Header.Get("Mcp-Session-Id") == "" {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Retry-After", "1")
			w.Header().Set("Connection", "close")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":%q}}`+"\n", drainRefusal)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// drainRefusal is what a new session is told while the gateway drains.
const drainRefusal = "this gateway is shutting down and takes no new session: connect again (another gateway of the farm takes it)"
