package broker

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
)

// probeListener is how a client's nodes can tell that a task's caller is still there when a
// task of its that waited in a device's queue is about to start (TaskRequest.Probe), and while
// it runs: a subscription to ProgressT, of each node the client calls, with a token of the
// client's in place of a task id, made at its first task to that node and kept for as long as
// its connection lives (nats.go renews it after a reconnection). No responders there means the
// connection is gone. A subject a node may publish on already (its tasks' progress), under
// permissions that let it answer the gateways' requests and send nothing else to their
// inboxes. One subscription a node, not one for every node: a hub tells an edge site of a
// subscription only if the site may publish on all of its subject, and a site's leaf user
// may publish progress as its own nodes only (LeafPermissions), so a site never heard of a
// subscription for every node's and its nodes' probes found no responders: every call from
// the hub that ran CallerGoneAfter or waited in a queue was aborted caller_gone.
//
// A connection alive says nothing of its calls: a gateway serves many callers, and those that
// leave at once (Ctrl-C of several command lines, a drain's cut) have their tasks aborted one
// by one, so the node may free the device and promote a queued task before that task's own
// abort arrives. So the client answers per call: a node's probe carries the task id and a
// reply subject of its own (CallerAnswerSubject, one the gateway may publish on), and the
// client says whether that call still waits for its answer (its caller's context alive), as
// it is when asked, not when its abort gets there. A token with callProbePrefix says that its
// client answers; an older client's (probePrefix) is only listened on. Per call this costs a
// map entry; over NATS, a client's first call to a node subscribes (a round trip, which only
// that node's calls wait for), and after that nothing goes but for a task that waited.
type probeListener struct {
	once  sync.Once
	nc    *nats.Conn
	token string
	// flush is the round trip after a node's subscription: nc's FlushWithContext; a test holds
	// it to see that calls to other nodes go on meanwhile.
	flush func(ctx context.Context, node string) error
	// acrossSite says whether a node is at an edge site, reached over its link (nil: none is);
	// its probes' token says so (probe_across_site.go).
	acrossSite func(node string) bool

	nodesMu sync.Mutex
	nodes   map[string]*nodeProbe

	mu    sync.Mutex
	calls map[string]context.Context // task id → its caller's context, while its call waits
}

// Probe token prefixes; task ids start with t_. probePrefix is an older client's token, only
// listened on; callProbePrefix one whose client answers per call.
const (
	probePrefix     = "p_"
	callProbePrefix = "c_"
)

// ProbeAnswers says whether the client that gave probe answers a node's question per call
// (CallerAnswerSubject); an older client's probe is only listened on.
func ProbeAnswers(probe string) bool { return strings.HasPrefix(probe, callProbePrefix) }

// Answers to a node's probe of one call.
var (
	CallerWaits = []byte("waiting") // the call still waits for its answer
	CallerLeft  = []byte("gone")    // it ended: its caller left, or it was answered
)

// callerAnswerPrefix starts the last token of the subject a node takes a probe's answer on.
const callerAnswerPrefix = "caller_"

// CallerAnswerSubject is where node takes the answer to its probe of task id's caller: a
// subject of its own, which the gateways may publish on (they send it requests there).
func CallerAnswerSubject(node, id string) string {
	return nodeEndpoint(node, callerAnswerPrefix+id)
}

// nodeProbe is the client's subscription to one node's probes. turn is held while it is made:
// only that node's calls wait for it, and no longer than their callers do.
type nodeProbe struct {
	turn    chan struct{}
	asked   bool   // the subscription was made, or refused for good
	listens bool   // the client listens there; false: its role may not (no node asks then)
	token   string // the token it listens with (tokenOf, as it was made)
}

// probeFlushTimeout bounds a node's subscription's round trip for a call that has no deadline
// (nats.go's Flush waits as long).
const probeFlushTimeout = 10 * time.Second

// tokenFor returns the client's probe token for a task to node, subscribing to node's probes
// at its first task there; "" if the client cannot listen there, or not before ctx ended (no
// node asks then: the task starts unasked, as an older client's does).
func (p *probeListener) tokenFor(ctx context.Context, nc *nats.Conn, node string) string {
	p.once.Do(func() {
		p.nc, p.calls, p.nodes = nc, map[string]context.Context{}, map[string]*nodeProbe{}
		p.token = randomID(callProbePrefix, 10)
		if p.flush == nil {
			p.flush = func(ctx context.Context, _ string) error { return p.nc.FlushWithContext(ctx) }
		}
	})
	p.nodesMu.Lock()
	n, ok := p.nodes[node]
	if !ok {
		n = &nodeProbe{turn: make(chan struct{}, 1)}
		p.nodes[node] = n
	}
	p.nodesMu.Unlock()
	select {
	case n.turn <- struct{}{}:
	case <-ctx.Done():
		return ""
	}
	defer func() { <-n.turn }()
	if !n.asked {
		n.token = p.tokenOf(node)
		n.listens, n.asked = p.listen(ctx, node, n.token)
	}
	if !n.listens {
		return ""
	}
	return n.token
}

// listen subscribes to node's probes of this client's calls: listens false if the client's
// role may not (asked: that is the answer for good), or the subscription could not be made
// now or before ctx ended (not asked: the next task tries again).
func (p *probeListener) listen(ctx context.Context, node, token string) (listens, asked bool) {
	subject := fmt.Sprintf(ProgressT, node, token)
	fctx, cancel := context.WithTimeout(ctx, probeFlushTimeout)
	defer cancel()
	for range probeListenTries {
		switch p.subscribe(fctx, node, subject) {
		case probeSubscribed:
			return true, true
		case probeRefused:
			return false, true
		case probeNotNow:
			return false, false
		}
	}
	return false, false
}

// probeListenTries bounds listen's subscriptions to one node when other errors keep coming
// meanwhile: after as many, the node's next task tries again.
const probeListenTries = 3

// probeSubscription is what became of one subscription to a node's probes.
type probeSubscription int

const (
	probeSubscribed probeSubscription = iota
	probeRefused                      // NATS refused it: the client's role may not
	probeNotNow                       // not made, or no round trip before ctx ended
	// probeUnsure: another error came meanwhile, e.g. another node's refusal, its subscription
	// made at the same time. The connection keeps its last error only, and this one's refusal
	// may have come before it: the subscription is undone, to be made again.
	probeUnsure
)

// subscribe subscribes to subject, node's probes, and tells whether NATS took it. A role that
// may not subscribe there is refused asynchronously, before the answer to a round trip that
// follows: the connection's last error tells, if nothing else came between the two, and a
// token nobody listens on would have every queued task of this client refused as its caller's
// gone.
func (p *probeListener) subscribe(ctx context.Context, node, subject string) probeSubscription {
	before := p.nc.LastError()
	sub, err := p.nc.Subscribe(subject, p.answer)
	if err != nil {
		return probeNotNow
	}
	if err := p.flush(ctx, node); err != nil {
		_ = sub.Unsubscribe()
		return probeNotNow
	}
	after := p.nc.LastError()
	if errors.Is(after, before) { // no error since the subscription, hence no refusal
		return probeSubscribed
	}
	_ = sub.Unsubscribe()
	if r := refusalOf("", after); r != nil && r.Op == "subscribe to" && r.Subject == subject {
		return probeRefused
	}
	return probeUnsure
}

// waiting notes that task id's call waits for its answer until ctx ends or it returns.
func (p *probeListener) waiting(ctx context.Context, id string) {
	p.mu.Lock()
	p.calls[id] = ctx
	p.mu.Unlock()
}

// returned ends waiting's note of id's call, made with ctx.
func (p *probeListener) returned(ctx context.Context, id string) {
	p.mu.Lock()
	if p.calls[id] == ctx {
		delete(p.calls, id)
	}
	p.mu.Unlock()
}

// waits says whether task id's call still waits: noted, and its caller's context alive.
func (p *probeListener) waits(id string) bool {
	p.mu.Lock()
	ctx, ok := p.calls[id]
	p.mu.Unlock()
	return ok && ctx.Err() == nil
}

// answer answers a node's probe of one call: the task id in its data, on the reply subject
// of that node's the probe names (an older node's probe, with neither, is only listened on).
func (p *probeListener) answer(m *nats.Msg) {
	id := string(m.Data)
	node, ok := probedNode(m.Subject)
	if !ok || !validToken(id) || m.Reply != CallerAnswerSubject(node, id) {
		return
	}
	answer := CallerLeft
	if p.waits(id) {
		answer = CallerWaits
	}
	_ = p.nc.Publish(m.Reply, answer)
}

// probedNode is the node of a probe's subject, corral.v1.progress.<node>.<token>.
func probedNode(subject string) (string, bool) {
	rest, ok := strings.CutPrefix(subject, Prefix+".progress.")
	if !ok {
		return "", false
	}
	node, _, ok := strings.Cut(rest, ".")
	return node, ok && validToken(node)
}

// isProbe says whether subject is a client's probe subscription's: its refusal (a role that
// may not subscribe to progress, e.g. an operator's) only means that no node can ask, and is
// not the refusal a command line should fail with.
func isProbe(subject string) bool {
	rest, ok := strings.CutPrefix(subject, Prefix+".progress.")
	if !ok {
		return false
	}
	_, token, ok := strings.Cut(rest, ".")
	return ok && (strings.HasPrefix(token, probePrefix) || strings.HasPrefix(token, callProbePrefix))
}
