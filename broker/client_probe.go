package broker

import (
	"fmt"
	"strings"
	"sync"

	"github.com/nats-io/nats.go"
)

// probeListener is how a client's nodes can tell that it is still there when a task of its
// that waited in a device's queue is about to start (TaskRequest.Probe): a subscription to
// ProgressT, every node's, with a token of the client's in place of a task id, made at its
// first task and kept for as long as its connection lives (nats.go renews it after a
// reconnection). A node's request there is not answered: that someone got it is the answer;
// no responders means the connection is gone, and the task does not run. A subject a node
// may publish on already (its tasks' progress), under permissions that let it answer the
// gateways' requests and send nothing else to their inboxes; and nothing per call.
type probeListener struct {
	once  sync.Once
	token string // "" if the subscription failed: no node asks then
}

// probePrefix starts a probe token; task ids start with t_.
const probePrefix = "p_"

// tokenOf returns the client's probe token, subscribing at the first call.
func (p *probeListener) tokenOf(nc *nats.Conn) string {
	p.once.Do(func() {
		token := randomID(probePrefix, 10)
		subject := fmt.Sprintf(ProgressT, "*", token)
		if _, err := nc.Subscribe(subject, func(*nats.Msg) {}); err != nil {
			return
		}
		// A role that may not subscribe there is refused asynchronously: a flush lets the
		// refusal arrive, and a token nobody listens on would have every queued task of this
		// client refused as its caller's gone.
		if err := nc.Flush(); err == nil {
			if r := refusalOf("", nc.LastError()); r == nil || r.Subject != subject {
				p.token = token
			}
		}
	})
	return p.token
}

// isProbe says whether subject is a client's probe subscription's: its refusal (a role that
// may not subscribe to progress, e.g. an operator's) only means that no node can ask, and is
// not the refusal a command line should fail with.
func isProbe(subject string) bool {
	return strings.HasPrefix(subject, fmt.Sprintf(ProgressT, "*", probePrefix))
}
