// Package jsguard drops messages a JetStream consumer delivered on subjects where only
// clients publish: a node's endpoints, its loss event, heartbeats, progress and frames.
//
// NATS permissions say who may publish on a subject, but not where a push consumer delivers:
// a user allowed to create a consumer on a stream (the operator role on every readable
// stream, a node on the registry's) can name any deliver subject, and JetStream then
// publishes the stream's messages there itself. A registry entry or an event carries a
// serial, so a node would take one as an abort or an acquire, from a role that may send
// neither. What JetStream delivers is told apart by its reply subject ($JS.ACK.…, $JS.FC.…)
// or, for a consumer's heartbeats, by its status header; clients' requests and publishes
// have neither.
package jsguard

import (
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"
)

// logEvery is how often a Guard logs what it dropped: a consumer delivering where it serves
// may send thousands of messages.
const logEvery = time.Minute

// Guard drops JetStream's deliveries and logs them, once a minute at most.
type Guard struct {
	log    *slog.Logger
	mu     sync.Mutex
	logged time.Time // when drops were last logged
	drops  int       // since then
}

// New returns a Guard that logs to log.
func New(log *slog.Logger) *Guard { return &Guard{log: log} }

// header is what a message's headers answer: nats.Header and micro.Headers.
type header interface{ Get(key string) string }

// Delivered says whether a message with this reply subject and headers was delivered by a
// JetStream consumer rather than published by a client.
func Delivered(reply string, h header) bool {
	return strings.HasPrefix(reply, "$JS.") || h.Get("Status") != "" // nats.go names it statusHdr, unexported
}

// Msg is h for the messages clients publish; it drops what JetStream delivered.
func (g *Guard) Msg(h nats.MsgHandler) nats.MsgHandler {
	return func(m *nats.Msg) {
		if !g.dropped(m.Subject, m.Reply, m.Header) {
			h(m)
		}
	}
}

// Micro is h for the requests clients send; it drops, unanswered, what JetStream delivered.
func (g *Guard) Micro(h micro.HandlerFunc) micro.HandlerFunc {
	return func(r micro.Request) {
		if !g.dropped(r.Subject(), r.Reply(), r.Headers()) {
			h(r)
		}
	}
}

func (g *Guard) dropped(subject, reply string, h header) bool {
	if !Delivered(reply, h) {
		return false
	}
	g.mu.Lock()
	g.drops++
	n, now := g.drops, time.Now()
	if now.Sub(g.logged) < logEvery {
		g.mu.Unlock()
		return true
	}
	g.logged, g.drops = now, 0
	g.mu.Unlock()
	// The reply, $JS.ACK.[<domain>.<account>.]<stream>.<consumer>.…, names the consumer.
	g.log.Warn("dropped messages a JetStream consumer delivered where only clients publish: a NATS user made a push consumer "+
		"deliver there; delete it (nats consumer rm STREAM CONSUMER, named in ack) and check who may create consumers",
		"subject", subject, "ack", reply, "dropped", n)
	return true
}
