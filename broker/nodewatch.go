package broker

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// NodeWatch is why a node watches its own registry entries. Each is one consumer of a name
// fixed by the node's id and the watch (NodeConsumer): the only consumers a node's NATS user
// may create, read and delete (auth.go), so that no node can delete another's or a gateway's.
// nats.go's KV watch names its consumer at random, and deleting it at a stop needed the right
// to delete any consumer of the registry.
type NodeWatch string

// The node's watches: one of each at most runs at a time in a node.
const (
	// NodeWatchStart reads the entries a node left behind, at its start.
	NodeWatchStart NodeWatch = "start"
	// NodeWatchReconnect reads them again once the node is back from a cut (a loss meanwhile).
	NodeWatchReconnect NodeWatch = "reconnect"
	// NodeWatchLost follows their updates only: a loss verdict whose event never came.
	NodeWatchLost NodeWatch = "lost"
)

// NodeWatches lists the node's watches.
var NodeWatches = []NodeWatch{NodeWatchStart, NodeWatchReconnect, NodeWatchLost}

// NodeConsumer is the name of the consumer of node's watch w on the registry's stream.
func NodeConsumer(node string, w NodeWatch) string { return "corral_node_" + node + "_" + string(w) }

// The consumer's timings: a node's heartbeats of its pulls, and how long a consumer the node
// left (a killed process) stays on the server. A node's next watch of that kind replaces it.
const (
	nodeWatchHeartbeat   = 5 * time.Second
	nodeWatchInactive    = time.Minute
	nodeWatchRequestWait = 5 * time.Second
	nodeWatchDeleteWait  = 2 * time.Second
)

// WatchNodeEntries watches node's own registry entries (keys <node>.*) as nats.go's KV watch
// with IgnoreDeletes does: in order, each once, the current values first and then a nil entry
// (NodeWatchLost: updates only, no nil), made again from where it was after a reconnection, a
// restart of the server or a gap. Stop ends it and deletes its consumer, as the end of ctx
// does (nats.go's watch ends with its ctx too); the connection's close ends it.
func (s *Stores) WatchNodeEntries(ctx context.Context, node string, w NodeWatch) (jetstream.KeyWatcher, error) {
	if !validToken(node) {
		return nil, fmt.Errorf("node id %q: use letters, digits, '-' and '_'", node)
	}
	if !slices.Contains(NodeWatches, w) {
		return nil, fmt.Errorf("node watch %q: use one of %v", w, NodeWatches)
	}
	life, stop := context.WithCancel(ctx)
	nw := &nodeWatcher{js: s.JS, nc: s.JS.Conn(), stream: kvStream(RegistryBucket), name: NodeConsumer(node, w),
		filter: "$KV." + RegistryBucket + "." + node + ".*", updatesOnly: w == NodeWatchLost,
		updates: make(chan jetstream.KeyValueEntry, 256), life: life, stop: stop, done: make(chan struct{})}
	// Before the first consumer: a reconnection between the two makes it again. (Its close
	// ends the wait for one.)
	reconnected := nw.nc.StatusChanged(nats.CONNECTED, nats.CLOSED)
	cons, err := nw.create(ctx)
	if err != nil {
		stop()
		nw.nc.RemoveStatusListener(reconnected)
		return nil, fmt.Errorf("watch node %s's registry entries: %w (may this node's NATS user create the consumer %s?)",
			node, err, nw.name)
	}
	go nw.run(cons, reconnected)
	return nw, nil
}

// nodeWatcher is a watch of WatchNodeEntries: an ordered consumer of one fixed name.
type nodeWatcher struct {
	js                   jetstream.JetStream
	nc                   *nats.Conn
	stream, name, filter string
	updatesOnly          bool

	updates chan jetstream.KeyValueEntry
	life    context.Context // ends at the stop, or with the caller's ctx
	stop    context.CancelFunc
	done    chan struct{}
	stopErr error // the delete of the consumer at the stop

	// Owned by create and run's goroutine.
	made                   bool   // a consumer was made: the next starts after streamSeq
	streamSeq, consumerSeq uint64 // of the last entry delivered
	initPending, received  uint64 // the current values when the watch began, and those read
	initDone               bool
}

// Updates delivers the entries; closed once the watch stopped.
func (w *nodeWatcher) Updates() <-chan jetstream.KeyValueEntry { return w.updates }

// Stop ends the watch and deletes its consumer.
func (w *nodeWatcher) Stop() error {
	w.stop()
	<-w.done
	return w.stopErr
}

// create replaces the watch's consumer with one that delivers what comes after the last entry
// delivered: a consumer of its name left on the server (a stop that could not reach it, a
// killed node) would deliver from elsewhere.
func (w *nodeWatcher) create(ctx context.Context) (jetstream.Consumer, error) {
	if err := w.js.DeleteConsumer(ctx, w.stream, w.name); err != nil && !errors.Is(err, jetstream.ErrConsumerNotFound) {
		return nil, fmt.Errorf("delete consumer %s: %w", w.name, err)
	}
	cfg := jetstream.ConsumerConfig{Name: w.name, FilterSubject: w.filter, AckPolicy: jetstream.AckNonePolicy,
		InactiveThreshold: nodeWatchInactive, Replicas: 1, MemoryStorage: true}
	// Made again, it starts after the last entry delivered; if that was none of the current
	// values, they are read again as they are now (a key written twice meanwhile shows its last
	// value only, as a new watch would).
	again := w.made && (w.streamSeq > 0 || w.updatesOnly)
	switch {
	case again:
		cfg.DeliverPolicy, cfg.OptStartSeq = jetstream.DeliverByStartSequencePolicy, w.streamSeq+1
	case w.updatesOnly:
		cfg.DeliverPolicy = jetstream.DeliverNewPolicy
	default:
		cfg.DeliverPolicy = jetstream.DeliverLastPerSubjectPolicy
	}
	cons, err := w.js.CreateConsumer(ctx, w.stream, cfg)
	if err != nil {
		return nil, fmt.Errorf("create consumer %s: %w", w.name, err)
	}
	w.consumerSeq = 0
	info := cons.CachedInfo()
	switch {
	case again:
	case w.updatesOnly:
		w.streamSeq, w.initDone = info.Delivered.Stream, true // the stream's last: updates come after it
	case !w.initDone:
		w.initPending, w.received = info.NumPending, 0
		if info.NumPending == 0 {
			w.initDone = true
			w.updates <- nil // buffered, and nothing else is in it yet
		}
	}
	w.made = true
	return cons, nil
}

// run delivers cons's entries, and those of the consumers that replace it, until the stop or
// the connection's close; then it deletes the last one and closes Updates.
func (w *nodeWatcher) run(cons jetstream.Consumer, reconnected chan nats.Status) {
	defer close(w.done)
	defer close(w.updates)
	defer w.nc.RemoveStatusListener(reconnected)
	for cons != nil {
		w.follow(cons, reconnected)
		if w.stopped() || w.nc.IsClosed() {
			break
		}
		cons = w.recreate(reconnected)
	}
	if w.nc.IsClosed() || !w.nc.IsConnected() {
		return // the server drops it when it has been inactive for nodeWatchInactive
	}
	ctx, cancel := context.WithTimeout(context.Background(), nodeWatchDeleteWait)
	defer cancel()
	if err := w.js.DeleteConsumer(ctx, w.stream, w.name); err != nil && !errors.Is(err, jetstream.ErrConsumerNotFound) {
		w.stopErr = fmt.Errorf("delete consumer %s of the node's watch: %w (the server drops it after %s)", w.name, err, nodeWatchInactive)
	}
}

// follow delivers cons's entries until the stop, a reconnection, a gap, or cons's end (its
// heartbeats missed: the server restarted, or deleted it).
func (w *nodeWatcher) follow(cons jetstream.Consumer, reconnected <-chan nats.Status) {
	it, err := cons.Messages(jetstream.PullHeartbeat(nodeWatchHeartbeat), jetstream.WithMessagesErrOnMissingHeartbeat(true))
	if err != nil {
		return
	}
	defer it.Stop()
	ctx, cancel := context.WithCancel(w.life)
	defer cancel()
	go func() {
		select {
		case <-reconnected:
		case <-ctx.Done():
		}
		cancel()
	}()
	for {
		m, err := it.Next(jetstream.NextContext(ctx))
		if err != nil {
			return
		}
		meta, err := m.Metadata()
		if err != nil || meta.Sequence.Consumer != w.consumerSeq+1 {
			return // a gap: made again from the last entry
		}
		w.consumerSeq, w.streamSeq = meta.Sequence.Consumer, meta.Sequence.Stream
		if !w.deliver(m, meta) {
			return
		}
	}
}

// deliver hands on m (a put: deletes and purges are skipped), and the nil entry after the
// last current value; false at the stop.
func (w *nodeWatcher) deliver(m jetstream.Msg, meta *jetstream.MsgMetadata) bool {
	e := newNodeEntry(m, meta)
	if e.op == jetstream.KeyValuePut && !w.send(e) {
		return false
	}
	if w.initDone {
		return true
	}
	w.received++
	if w.received >= w.initPending || meta.NumPending == 0 {
		w.initDone = true
		return w.send(nil)
	}
	return true
}

func (w *nodeWatcher) send(e jetstream.KeyValueEntry) bool {
	select {
	case w.updates <- e:
		return true
	case <-w.life.Done():
		return false
	}
}

// recreate makes the consumer again, retrying (the server just restarted: JetStream not up
// yet) until it can; nil at the stop or the connection's close.
func (w *nodeWatcher) recreate(reconnected <-chan nats.Status) jetstream.Consumer {
	for {
		drain(reconnected) // the consumer made next comes after them
		if !w.nc.IsConnected() {
			select { // nats.go would hold the requests until it is back
			case <-reconnected:
			case <-w.life.Done():
				return nil
			}
			if w.nc.IsClosed() {
				return nil
			}
		}
		ctx, cancel := context.WithTimeout(w.life, nodeWatchRequestWait)
		cons, err := w.create(ctx)
		cancel()
		if err == nil {
			return cons
		}
		select {
		case <-w.life.Done():
			return nil
		case <-time.After(rewatchEvery):
		}
		if w.nc.IsClosed() {
			return nil
		}
	}
}

func (w *nodeWatcher) stopped() bool { return w.life.Err() != nil }
