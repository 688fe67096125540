package broker

import (
	"fmt"
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
		if _, err := nc.Subscribe(fmt.Sprintf(ProgressT, "*", token), func(*nats.Msg) {}); err == nil {
			p.token = token
		}
	})
	return p.token
}
