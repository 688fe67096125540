package mcp

import (
	"context"
	"fmt"
	"slices"

	"github.com/corral-farm/corral/broker"
)

// releasePrevious gives back the lease select_device took for prev, the caller's selection
// before the one it just made of now: select_device means "use this device", and switching
// left the previous one held until it idled out (5 minutes), unusable by anyone. Only that
// lease goes: leases acquire_device took are not selections. While a task of the caller runs
// there, it keeps it, and the answer says so: releasing under a running task would leave it
// unfenced and refuse what the caller queued behind it. A previous device gone from the
// registry has nothing to give back. It returns what to add to select_device's answer.
func (g *Gateway) releasePrevious(ctx context.Context, prev broker.SessionDefault, now string) string {
	if prev.Serial == "" || prev.Serial == now || prev.Lease == "" {
		return ""
	}
	if _, ok := g.farm.Device(prev.Serial); !ok {
		// Removed from the registry (corral devices forget, or a node that no longer serves it
		// at its start): no node holds a lease of it, and releasing would only fail.
		return fmt.Sprintf(" The previous selection %s is no longer in the farm's registry (its node was forgotten, or no longer serves it): "+
			"no lease of it is left, nothing to release.", prev.Serial)
	}
	if running, ended := g.previousRunning(ctx, prev); ended {
		return "" // expired, released or revoked already: nothing to give back
	} else if running != nil {
		if err := g.keepPrevious(ctx, prev.Lease); err != nil {
			return fmt.Sprintf(" The previous selection %s keeps its lease while your %s runs there (task %s), and it could not be "+
				"remembered for you (%v): release_device it with serial %s and the lease select_device gave once that ends, or it expires when idle.",
				prev.Serial, running.Tool, running.ID, err, prev.Serial)
		}
		return fmt.Sprintf(" The previous selection %s keeps its lease while your %s runs there (task %s): "+
			"release_device {\"serial\":%q} gives it back once that ends, or it expires when idle.",
			prev.Serial, running.Tool, running.ID, prev.Serial)
	}
	ans, err := g.farm.Release(ctx, broker.ReleaseRequest{V: broker.WireVersion, Serial: prev.Serial, Handle: prev.Lease,
		By: holderFrom(ctx).String()})
	switch {
	case err != nil:
		return fmt.Sprintf(" The previous selection %s could not be released (%v): release_device it (serial %s and its lease), or it expires when idle.",
			prev.Serial, err, prev.Serial)
	case !ans.OK:
		return "" // it had ended meanwhile
	}
	return fmt.Sprintf(" Released the previous selection %s.", prev.Serial)
}

// keepPrevious records the lease of the previous selection, kept under a running task, with the
// caller's selection: switching dropped it from the selection, so
// release_device {"serial":...} found no lease of it and the device stayed held until it
// idled out.
func (g *Gateway) keepPrevious(ctx context.Context, lease string) error {
	return g.updateSessionBriefly(ctx, selectionKey(ctx), func(sd *broker.SessionDefault) bool {
		sd.Kept = append(slices.DeleteFunc(sd.Kept, func(h string) bool { return h == lease }), lease)
		if n := len(sd.Kept); n > maxSessionLeases {
			sd.Kept = slices.Clone(sd.Kept[n-maxSessionLeases:])
		}
		return true
	})
}

// previousRunning asks the previous selection's node what runs there: the registry shows a
// task up to a quarter second after it ended (or before it shows), which kept a device a
// finished tap had run on. A lease request without wait is answered at once, for a device its
// caller holds busy with the lease's view, running task included. ended: the lease is no
// longer the device's; a device granted to the request (free: the lease had ended) is given
// back at once. A node that refuses leases now (draining, unhealthy) leaves the registry to
// tell.
func (g *Gateway) previousRunning(ctx context.Context, prev broker.SessionDefault) (running *broker.RunningTask, ended bool) {
	ans, err := g.farm.Acquire(ctx, broker.AcquireRequest{V: broker.WireVersion, Serial: prev.Serial, Holder: holderFrom(ctx)})
	switch {
	case err == nil && ans.OK && ans.Lease != nil:
		_, _ = g.farm.Release(ctx, broker.ReleaseRequest{V: broker.WireVersion, Serial: prev.Serial, Handle: ans.Lease.Handle,
			By: holderFrom(ctx).String()})
		return nil, true
	case err == nil && ans.Code == broker.CodeBusy && ans.Lease != nil:
		if !sameLease(ans.Lease, prev.Lease) {
			return nil, true
		}
		return ans.Lease.Running, false
	}
	if d, ok := g.farm.Device(prev.Serial); ok {
		return d.Task, false
	}
	return nil, false
}
