package mcp

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/corral-farm/corral/broker"
)

// quotaFarm applies the policy's fair shares (docs/auth.md) to what the gateway asks of the
// nodes: every task and lease request carries its principal's share, which the nodes' queues
// honour (actors/turns.go), and a lease request of a principal that already holds max_devices
// is refused here, before any node is asked.
type quotaFarm struct {
	Farm
	g *Gateway

	mu     sync.Mutex
	asking map[string]int // principal → its lease requests in flight through this gateway
}

func (q *quotaFarm) Run(ctx context.Context, req broker.TaskRequest, progress func(broker.Progress)) (broker.TaskResult, error) {
	if p := q.g.principal(ctx); p != nil {
		req.Share = p.Share
	}
	return q.Farm.Run(ctx, req, progress)
}

func (q *quotaFarm) Acquire(ctx context.Context, req broker.AcquireRequest) (broker.LeaseAnswer, error) {
	p := q.g.principal(ctx)
	if p == nil {
		return q.Farm.Acquire(ctx, req)
	}
	req.Share = p.Share
	if p.MaxDevices == 0 {
		return q.Farm.Acquire(ctx, req)
	}
	// Requests still in flight count as held: two at once must not both pass a count of one
	// below the bound. A grant landing between the listing and its request's end is counted
	// twice for that moment, which errs on the side of the bound.
	q.mu.Lock()
	asking := q.asking[p.Name]
	q.asking[p.Name]++
	q.mu.Unlock()
	defer func() {
		q.mu.Lock()
		if q.asking[p.Name]--; q.asking[p.Name] == 0 {
			delete(q.asking, p.Name)
		}
		q.mu.Unlock()
	}()
	leases, err := q.Farm.Leases(ctx)
	if err != nil {
		return broker.LeaseAnswer{}, fmt.Errorf("counting the leases of %s for its max_devices: %w", p.Name, err)
	}
	var held []string
	for _, l := range leases {
		if l.Holder.Principal == p.Name {
			held = append(held, l.Serial)
		}
	}
	if len(held)+asking >= p.MaxDevices {
		q.g.metrics.deny(reasonQuota)
		q.g.logDenial(ctx, denial{reason: reasonQuota, serial: req.Serial, rule: fmt.Sprintf("max_devices %d; holds %d, %d more asked for", p.MaxDevices, len(held), asking)})
		return broker.LeaseAnswer{V: broker.WireVersion, Code: broker.CodeQuota, Error: quotaText(p, held, asking)}, nil
	}
	return q.Farm.Acquire(ctx, req)
}

// farmAs finds an optional ability of the farm (a group store, the console's history and
// screens) under quotaFarm, which passes on only what Farm names.
func farmAs[T any](f Farm) (T, bool) {
	if q, ok := f.(*quotaFarm); ok {
		f = q.Farm
	}
	if k, ok := f.(*keyedSessions); ok { // sessions_per_principal.go
		f = k.Farm
	}
	t, ok := f.(T)
	return t, ok
}

// quotaText refuses a lease beyond p's max_devices. Waiting in a queue cannot help: it says what
// can, giving back a device p holds (named, never by its handle) or a larger bound.
func quotaText(p *Principal, held []string, asking int) string {
	const larger = "or ask the farm's operator for a larger max_devices (docs/auth.md)"
	if len(held) == 0 {
		return fmt.Sprintf("%s has %d lease requests on their way through this gateway, the most its policy allows (max_devices %d); "+
			"this one cannot queue behind them: ask again when they have ended (one that waits ends by its wait_seconds), %s", p.Name, asking, p.MaxDevices, larger)
	}
	of := ""
	if asking > 0 {
		of = fmt.Sprintf(", and %d more lease requests of it are on their way through this gateway", asking)
	}
	devices := fmt.Sprintf("%d devices (%s)", len(held), namedSerials(held))
	release := "one of them"
	if len(held) == 1 {
		devices, release = "device "+held[0], held[0]
	}
	return fmt.Sprintf("%s holds %s%s, the most its policy allows (max_devices %d); waiting does not help: "+
		"release_device %s first (its serial and lease; list_leases shows its leases), %s",
		p.Name, devices, of, p.MaxDevices, release, larger)
}

// namedSerials names devices by serial, at most maxNamedDevices of them.
func namedSerials(serials []string) string {
	if len(serials) <= maxNamedDevices {
		return strings.Join(serials, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(serials[:maxNamedDevices], ", "), len(serials)-maxNamedDevices)
}
