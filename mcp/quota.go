package mcp

import (
	"context"
	"fmt"
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
	held := 0
	for _, l := range leases {
		if l.Holder.Principal == p.Name {
			held++
		}
	}
	if held+asking >= p.MaxDevices {
		q.g.metrics.deny(reasonQuota)
		return broker.LeaseAnswer{V: broker.WireVersion, Code: broker.CodeQuota,
			Error: fmt.Sprintf("%s holds %d devices and asks for %d more already, the most its policy allows (max_devices %d); release_device one first",
				p.Name, held, asking, p.MaxDevices)}, nil
	}
	return q.Farm.Acquire(ctx, req)
}

// farmAs finds an optional ability of the farm (a group store, the console's history and
// screens) under quotaFarm, which passes on only what Farm names.
func farmAs[T any](f Farm) (T, bool) {
	if q, ok := f.(*quotaFarm); ok {
		f = q.Farm
	}
	t, ok := f.(T)
	return t, ok
}
