package nodes

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/corral-farm/corral/actors"
	"github.com/corral-farm/corral/broker"
)

// Write cadence: events, task records and leases go out within flushEvery; registry entries
// at most every registryEvery, so a device that flips busy and idle a hundred times a second is
// written a few times, not a hundred (gateways watch every write).
const (
	flushEvery    = 20 * time.Millisecond
	registryEvery = 250 * time.Millisecond
)

// natsMirror is the scheduler's Mirror over JetStream. The scheduler's calls only queue; a
// goroutine coalesces registry and lease writes per serial and publishes asynchronously.
type natsMirror struct {
	stores *broker.Stores
	log    *slog.Logger

	mu      sync.Mutex
	devices map[string]broker.DeviceEntry
	leases  map[string]*broker.Lease // nil: delete
	events  []publication
	wake    chan struct{}
}

type publication struct {
	subject string
	data    []byte
}

var _ actors.Mirror = (*natsMirror)(nil)

func newNATSMirror(stores *broker.Stores, log *slog.Logger) *natsMirror {
	return &natsMirror{stores: stores, log: log, devices: map[string]broker.DeviceEntry{},
		leases: map[string]*broker.Lease{}, wake: make(chan struct{}, 1)}
}

func (m *natsMirror) Device(e broker.DeviceEntry) {
	m.mu.Lock()
	m.devices[e.Serial] = e
	m.mu.Unlock()
	m.signal()
}

func (m *natsMirror) Lease(serial string, l *broker.Lease) {
	var cp *broker.Lease
	if l != nil {
		c := l.Public() // the handle is the holder's secret; KV readers see who, not how
		cp = &c
	}
	m.mu.Lock()
	m.leases[serial] = cp
	m.mu.Unlock()
	m.signal()
}

func (m *natsMirror) Event(ev broker.Event) {
	var subject string
	switch ev.Kind {
	case "device":
		subject = fmt.Sprintf(broker.EventDevT, broker.Token(ev.Serial), ev.What)
	case "lease":
		subject = fmt.Sprintf(broker.EventLeaseT, broker.Token(ev.Serial), ev.What)
	default:
		subject = fmt.Sprintf(broker.EventNodeT, ev.Node, ev.What)
	}
	m.publish(subject, ev)
}

func (m *natsMirror) TaskRecord(res broker.TaskResult) {
	m.publish(fmt.Sprintf(broker.EventTaskT, res.ID), res)
}

func (m *natsMirror) publish(subject string, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		m.log.Error("event not encodable", "subject", subject, "err", err)
		return
	}
	m.mu.Lock()
	m.events = append(m.events, publication{subject: subject, data: data})
	m.mu.Unlock()
	m.signal()
}

func (m *natsMirror) signal() {
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

// run writes what was queued until ctx ends, then writes what is left.
func (m *natsMirror) run(ctx context.Context) {
	var lastRegistry time.Time
	for {
		select {
		case <-ctx.Done():
			m.flush(context.Background(), true)
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
		if m.flush(ctx, withRegistry) {
			m.signal() // registry entries wait for their turn
		}
	}
}

// flush writes the queued changes: registry entries (when withRegistry) and events
// asynchronously, leases in order. It reports whether registry entries are still waiting.
func (m *natsMirror) flush(ctx context.Context, withRegistry bool) bool {
	m.mu.Lock()
	var devices map[string]broker.DeviceEntry
	if withRegistry {
		devices, m.devices = m.devices, map[string]broker.DeviceEntry{}
	}
	leases, events := m.leases, m.events
	m.leases, m.events = map[string]*broker.Lease{}, nil
	pending := len(m.devices) > 0
	m.mu.Unlock()
	if len(devices)+len(leases)+len(events) == 0 {
		return pending
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	js := m.stores.JS
	for serial, e := range devices {
		data, _ := json.Marshal(e)
		if _, err := js.PublishAsync("$KV."+broker.RegistryBucket+"."+broker.Token(serial), data); err != nil {
			m.log.Warn("registry write failed", "serial", serial, "err", err)
		}
	}
	for _, p := range events {
		if _, err := js.PublishAsync(p.subject, p.data); err != nil {
			m.log.Warn("event write failed", "subject", p.subject, "err", err)
		}
	}
	for serial, l := range leases {
		var err error
		if l == nil {
			err = m.stores.Leases.Delete(ctx, broker.Token(serial))
		} else {
			data, _ := json.Marshal(l)
			_, err = m.stores.Leases.Put(ctx, broker.Token(serial), data)
		}
		if err != nil {
			m.log.Warn("lease mirror write failed", "serial", serial, "err", err)
		}
	}
	select {
	case <-js.PublishAsyncComplete():
	case <-ctx.Done():
		m.log.Warn("registry and event writes not acknowledged in time", "err", ctx.Err())
	}
	return pending
}

// ownEntries reads the registry entries a node with this id left behind.
func ownEntries(ctx context.Context, stores *broker.Stores, node string) (map[string]broker.DeviceEntry, error) {
	w, err := stores.Registry.WatchAll(ctx, jetstream.IgnoreDeletes())
	if err != nil {
		return nil, fmt.Errorf("read the registry: %w", err)
	}
	defer func() { _ = w.Stop() }()
	out := map[string]broker.DeviceEntry{}
	for e := range w.Updates() {
		if e == nil {
			break
		}
		var d broker.DeviceEntry
		if json.Unmarshal(e.Value(), &d) == nil && d.Node == node {
			out[d.Serial] = d
		}
	}
	return out, nil
}
