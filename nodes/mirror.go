package nodes

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/corral-farm/corral/actors"
	"github.com/corral-farm/corral/broker"
)

// Write cadence: events, task records and leases go out within flushEvery; registry entries
// and lease renewals at most every registryEvery, so a device that flips busy and idle a
// hundred times a second is written a few times, not a hundred (gateways watch every write),
// and a lease renewed by every call is not a KV write a call.
const (
	flushEvery    = 20 * time.Millisecond
	registryEvery = 250 * time.Millisecond
	// A write NATS did not acknowledge (a server lost, a stream electing a new leader) is
	// retried after retryEvery, up to maxTries times for an event or task record; a registry
	// entry or lease is retried until a newer one for the same serial replaces it (an entry
	// refused as too large is written cut, then given up: entry_refused.go).
	retryEvery        = 250 * time.Millisecond
	maxTries          = 60
	leaseWriteTimeout = 2 * time.Second
)

// natsMirror is the scheduler's Mirror over JetStream. The scheduler's calls only queue; a
// goroutine coalesces registry and lease writes per serial and publishes asynchronously.
type natsMirror struct {
	stores *broker.Stores
	node   string // the node's id: in every key and subject it writes (broker.PermissionsFor)
	log    *slog.Logger
	health *storeHealth // whether the stores take the writes (storehealth.go)

	mu      sync.Mutex
	devices map[string]broker.DeviceEntry
	shown   map[string]broker.DeviceEntry // the last entry given for each serial (reshow)
	leases  map[string]leaseWrite
	written map[string]uint64 // the epoch of each serial's lease last taken to be written
	events  []publication
	wake    chan struct{}
	// held: registry entries wait, while the node's connection is down and until the node,
	// back, has read whether the farm declared it lost meanwhile (connection.go): its own
	// entries must not overwrite the farm's verdict before it is read.
	held bool

	lostShown lostShown                     // devices the farm wrote offline for a loss (shown_again.go)
	oversized oversized                     // entries refused as too large (entry_refused.go); flush's alone
	past      map[string][]actors.PastLease // leases that ended before this run (past_leases.go)
}

type publication struct {
	subject string
	v       any    // encoded by the writer, off the scheduler's goroutine: data and id then
	data    []byte //
	id      string // Nats-Msg-Id: the stream drops a retry of a write it already has (given, or a hash of the write)
	// own: the subject is this write's alone (a task record's names its task). A retry then
	// asks the stream for an empty subject rather than for an id it must remember: at one
	// record a call, the ids cost the server about 5 µs of CPU each.
	own bool
	// first: what follows waits until it is stored, so that a failed try, written again, is
	// still before it (a loss's offline event before the device's next state: shown_again.go).
	first bool
	tries int
}

// leaseWrite is a lease entry to write, or to delete. By value: a task renews its lease twice,
// and a copy on the heap each time is garbage to collect.
type leaseWrite struct {
	lease  broker.Lease
	delete bool
	// renewal: only its expiry moved since the lease was last written; it waits for the
	// registry's turn. (Gateways ask the nodes for leases; the mirror's expiry is a moment
	// behind at most, and a node restored from it gives back a lease that soon, not later.)
	renewal bool
}

// encode fills in the publication's data and id once.
func (p *publication) encode() error {
	if p.data != nil {
		return nil
	}
	if p.own {
		res := p.v.(broker.TaskResult)
		data, err := res.AppendJSON(nil)
		p.data, p.v = data, nil
		return err
	}
	data, err := json.Marshal(p.v)
	if err != nil {
		return err
	}
	p.data, p.v = data, nil
	if p.id == "" {
		h := sha256.New()
		h.Write([]byte(p.subject))
		h.Write([]byte{'\n'})
		h.Write(data)
		var sum [sha256.Size]byte
		p.id = hex.EncodeToString(h.Sum(sum[:0])[:16])
	}
	return nil
}

var _ actors.Mirror = (*natsMirror)(nil)

func newNATSMirror(stores *broker.Stores, node string, log *slog.Logger) *natsMirror {
	return &natsMirror{stores: stores, node: node, log: log, health: newStoreHealth(node, log), devices: map[string]broker.DeviceEntry{},
		shown: map[string]broker.DeviceEntry{}, leases: map[string]leaseWrite{}, written: map[string]uint64{}, wake: make(chan struct{}, 1)}
}

// holdRegistry keeps registry entries back until releaseRegistry.
func (m *natsMirror) holdRegistry() {
	m.mu.Lock()
	m.held = true
	m.mu.Unlock()
}

// releaseRegistry lets the held registry entries go out.
func (m *natsMirror) releaseRegistry() {
	m.mu.Lock()
	m.held = false
	m.mu.Unlock()
	m.signal()
}

func (m *natsMirror) Device(e broker.DeviceEntry) {
	m.mu.Lock()
	m.devices[e.Serial] = e
	m.shown[e.Serial] = e
	m.shownAgain(e)
	m.mu.Unlock()
	m.signal()
}

// reshow writes every entry again as last given: a gateway wrote over them (its verdict of a
// loss the node already answered) and nothing in the node changed to write them anew.
func (m *natsMirror) reshow() {
	m.mu.Lock()
	for serial, e := range m.shown {
		if _, queued := m.devices[serial]; !queued {
			m.devices[serial] = e
		}
		m.shownAgain(e)
	}
	m.mu.Unlock()
	m.signal()
}

func (m *natsMirror) Lease(serial string, l *broker.Lease) {
	w := leaseWrite{delete: l == nil}
	if l != nil {
		w.lease = l.Public() // the handle is the holder's secret; KV readers see who, not how
	}
	m.mu.Lock()
	prev, queued := m.leases[serial]
	epoch, known := m.written[serial]
	// (A write queued at once stays so when renewed: a grant whose write failed is queued again.)
	w.renewal = !w.delete && known && epoch == w.lease.Epoch && (!queued || prev.renewal)
	m.leases[serial] = w
	m.mu.Unlock()
	m.signal()
}

func (m *natsMirror) Event(ev broker.Event) {
	m.mu.Lock()
	if ev.Kind == "device" && !m.lossFirst(ev.Serial) { // the scheduler records the state after a loss itself
		m.statedAfterLoss(ev.Serial) // or of a loss whose entry is not seen yet (shown_again.go)
	}
	m.events = append(m.events, publication{subject: m.eventSubject(ev), v: ev})
	m.mu.Unlock()
	m.signal()
}

// eventSubject is where ev, an event of this node, is recorded.
func (m *natsMirror) eventSubject(ev broker.Event) string {
	switch ev.Kind {
	case "device":
		return fmt.Sprintf(broker.EventDevT, m.node, broker.Token(ev.Serial), ev.What)
	case "lease":
		return fmt.Sprintf(broker.EventLeaseT, m.node, broker.Token(ev.Serial), ev.What)
	}
	return fmt.Sprintf(broker.EventNodeT, m.node, ev.What)
}

// TaskRecord queues a task's record, encoded by the wire codec (one a call) off the
// scheduler's goroutine.
func (m *natsMirror) TaskRecord(res broker.TaskResult) {
	m.queue(publication{subject: m.taskRecordSubject(res.ID), v: res, own: true})
}

// taskRecordSubject is broker.EventTaskT's subject for task id of this node, concatenated in
// one allocation rather than formatted: every call records one.
func (m *natsMirror) taskRecordSubject(id string) string {
	return broker.Prefix + ".events.task." + m.node + "." + id
}

func (m *natsMirror) queue(p publication) {
	m.mu.Lock()
	m.events = append(m.events, p)
	m.mu.Unlock()
	m.signal()
}

func (m *natsMirror) signal() {
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

// run writes what was queued until ctx ends, then writes what is left (mirror_stop.go).
func (m *natsMirror) run(ctx context.Context) {
	var lastRegistry time.Time
	for {
		select {
		case <-ctx.Done():
			m.releaseRegistry() // the node stops: what it last knew goes out
			m.flushAtStop(stopFlushWait)
			return
		case <-m.wake:
		}
		select {
		case <-ctx.Done():
		case <-time.After(flushEvery):
		}
		withRegistry := time.Since(lastRegistry) >= registryEvery
		if withRegistry {
			lastRegistry = time.Now()
		}
		pending, failed := m.flush(ctx, withRegistry)
		if failed {
			select {
			case <-ctx.Done():
			case <-time.After(retryEvery):
			}
		}
		if pending || failed {
			m.signal() // registry entries and renewals wait for their turn; failed writes are retried
		}
	}
}

// flush writes the queued changes: registry entries (when withRegistry) and events
// asynchronously, leases in order. Writes that fail or go unacknowledged are queued again.
// It reports whether registry entries or renewals are still waiting, and whether a write failed.
func (m *natsMirror) flush(ctx context.Context, withRegistry bool) (pending, failed bool) {
	m.mu.Lock()
	var devices map[string]broker.DeviceEntry
	if withRegistry && !m.held {
		devices, m.devices = m.devices, map[string]broker.DeviceEntry{}
	}
	leases := map[string]leaseWrite{}
	for serial, w := range m.leases {
		if w.renewal && !withRegistry {
			pending = true
			continue
		}
		leases[serial] = w
		delete(m.leases, serial)
		if w.delete {
			delete(m.written, serial)
		} else {
			m.written[serial] = w.lease.Epoch
		}
	}
	events := m.events
	m.events = nil
	// What follows a publication that must be stored first waits for the next flush.
	for i, p := range events[:max(len(events)-1, 0)] {
		if p.first {
			m.events, events = append([]publication(nil), events[i+1:]...), events[:i+1]
			pending = true
			break
		}
	}
	pending = pending || len(m.devices) > 0 && !m.held // releaseRegistry signals
	m.mu.Unlock()
	if len(devices)+len(leases)+len(events) == 0 {
		return pending, false
	}
	// Not cancelled with the node's life (the stop's flush needs it), but within a deadline of
	// the caller's (the stop's budget).
	limit := 10 * time.Second
	if d, ok := ctx.Deadline(); ok {
		limit = min(limit, time.Until(d))
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), limit)
	defer cancel()
	js := m.stores.JS
	var lastErr error
	devFutures := map[string]jetstream.PubAckFuture{}
	evFutures := make([]jetstream.PubAckFuture, len(events))
	var devErrs map[string]error
	for serial, e := range devices {
		data, _ := json.Marshal(m.oversized.entry(e))
		f, err := js.PublishAsync("$KV."+broker.RegistryBucket+"."+broker.RegistryKey(m.node, serial), data)
		if err != nil {
			if devErrs == nil {
				devErrs = map[string]error{}
			}
			devErrs[serial] = err // over the server's max payload, among others
			continue
		}
		devFutures[serial] = f
	}
	for i := range events {
		p := &events[i]
		if err := p.encode(); err != nil {
			m.log.Error("event not encodable; dropped", "subject", p.subject, "err", err)
			continue
		}
		msg := &nats.Msg{Subject: p.subject, Data: p.data}
		switch {
		case !p.own:
			msg.Header = nats.Header{jetstream.MsgIDHeader: {p.id}}
		case p.tries > 0:
			msg.Header = nats.Header{jetstream.ExpectedLastSubjSeqHeader: {"0"}}
		}
		f, err := js.PublishMsgAsync(msg)
		if err != nil {
			lastErr = err
			continue
		}
		evFutures[i] = f
	}
	failedLeases := map[string]leaseWrite{}
	for serial, l := range leases {
		// A write lost with a NATS server would hold the others up until ctx ends: retry it
		// sooner instead.
		wctx, wcancel := context.WithTimeout(ctx, leaseWriteTimeout)
		var err error
		if l.delete {
			err = m.stores.Leases.Delete(wctx, broker.LeaseKey(m.node, serial))
		} else {
			data, _ := json.Marshal(l.lease)
			_, err = m.stores.Leases.Put(wctx, broker.LeaseKey(m.node, serial), data)
		}
		wcancel()
		if err != nil {
			lastErr = err
			failedLeases[serial] = l
		}
	}
	select {
	case <-js.PublishAsyncComplete():
	case <-ctx.Done():
	}
	failedDevices := map[string]broker.DeviceEntry{}
	var cut map[string]broker.DeviceEntry // refused as too large: written again, cut
	for serial, e := range devices {
		err := devErrs[serial]
		if err == nil {
			err = acked(devFutures[serial])
		}
		if err == nil {
			m.taken(serial)
			continue
		}
		err = broker.ExplainStoreLimit(broker.RegistryBucket, err) // a value too large, the bucket full: say so
		if troubleOf(err) == troubleTooLarge {
			if m.refusedTooLarge(serial, m.oversized.entry(e), err) {
				if cut == nil {
					cut = map[string]broker.DeviceEntry{}
				}
				cut[serial] = e
			}
			continue
		}
		lastErr = err
		failedDevices[serial] = e
	}
	if len(cut) > 0 {
		m.mu.Lock()
		for serial, e := range cut {
			if _, newer := m.devices[serial]; !newer {
				m.devices[serial] = e
			}
		}
		pending = pending || !m.held
		m.mu.Unlock()
	}
	var retry []publication
	dropped := 0
	for i, p := range events {
		if p.data == nil {
			continue // not encodable: dropped above
		}
		if err := acked(evFutures[i]); err != nil && !(p.own && p.tries > 0 && storedBefore(err)) {
			lastErr = err
			if p.tries++; p.tries >= maxTries {
				dropped++ // counted and told by m.health, not a line each
				m.log.Debug("event write failed for good; dropped", "subject", p.subject, "tries", p.tries, "err", err)
				continue
			}
			retry = append(retry, p)
		}
	}
	m.health.wrote(len(failedDevices)+len(failedLeases)+len(retry), dropped, lastErr)
	failed = len(failedDevices)+len(failedLeases)+len(retry) > 0
	if !failed {
		return pending, false
	}
	m.log.Debug("NATS writes failed; retrying", "registry", len(failedDevices), "leases", len(failedLeases), "events", len(retry), "err", lastErr)
	m.mu.Lock()
	defer m.mu.Unlock()
	for serial, e := range failedDevices {
		if _, newer := m.devices[serial]; !newer {
			m.devices[serial] = e
		}
	}
	for serial, l := range failedLeases {
		if _, newer := m.leases[serial]; !newer {
			m.leases[serial] = l
		}
	}
	m.events = append(retry, m.events...)
	return len(m.devices) > 0 && !m.held, true
}

// storedBefore says whether a write that expected its subject empty was refused because a
// message is there: the write's first try, whose acknowledgement was lost.
func storedBefore(err error) bool {
	var api *jetstream.APIError
	return errors.As(err, &api) && (api.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence ||
		api.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant)
}

// acked says whether an asynchronous write was acknowledged: nil, or why not (no future: it was
// never sent; no answer yet: it timed out here).
func acked(f jetstream.PubAckFuture) error {
	if f == nil {
		return errors.New("not sent")
	}
	select {
	case <-f.Ok():
		return nil
	case err := <-f.Err():
		return err
	default:
		return errors.New("not acknowledged in time")
	}
}

// ownEntries reads the registry entries a node with this id left behind, under its own keys
// (<node>.<serial>); one naming another node is not this node's. A node's NATS user may watch
// these keys only (broker/auth.go): one filter, in the consumer request's subject. Entries
// under the serial alone (a Corral from before NATS roles) are not read: no subject filter
// scopes them to a node, and the filter that matches them lets a node's user watch every key.
func ownEntries(ctx context.Context, stores *broker.Stores, node string) (map[string]broker.DeviceEntry, error) {
	w, err := stores.WatchNodeEntries(ctx, node, broker.NodeWatchStart)
	if err != nil {
		return nil, fmt.Errorf("read the registry: %w", err)
	}
	defer func() { _ = w.Stop() }()
	out := map[string]broker.DeviceEntry{}
	for e := range w.Updates() {
		if e == nil {
			return out, nil // the current values are all read
		}
		var d broker.DeviceEntry
		if json.Unmarshal(e.Value(), &d) != nil || d.Node != node || e.Key() != broker.RegistryKey(node, d.Serial) {
			continue
		}
		out[d.Serial] = d
	}
	// The watch ended before (ctx, or the connection closed): what was read may not be all.
	return nil, fmt.Errorf("read the registry: the watch of node %s's entries ended before they were read: %w", node, cmp.Or(context.Cause(ctx), nats.ErrConnectionClosed))
}
