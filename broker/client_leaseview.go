package broker

import "time"

// appliedFor bounds how long a lease this client learnt of from its node's answer is shown
// ahead of the registry. The node writes its entry 20 to 270 ms after it answers
// (nodes/mirror.go batches registry writes); an entry that never comes (the node lost just
// then) must not leave the lease shown for good.
const appliedFor = 5 * time.Second

// appliedLease is a lease grant or release that this client's caller got from the device's
// node, shown in the cache until the registry's entry catches up: the caller's next read
// through this gateway (list_available_devices, get_device_status) sees its lease, not the
// device free, and, once given back, the device free.
type appliedLease struct {
	holder string // "" when released
	epoch  uint64 // the lease's epoch
	until  time.Time
}

// keptOver returns a, still to be shown over d, a newer registry entry; nil when d is as
// new as a or newer. A grant moves the device's epoch on, so any entry of that epoch or later
// was written after it; a release keeps the epoch, so only an entry without a holder was.
func (a *appliedLease) keptOver(d DeviceEntry) *appliedLease {
	if a == nil || d.Epoch > a.epoch || d.Epoch == a.epoch && (a.holder != "" || d.Holder == "") {
		return nil
	}
	return a
}

// show is d as this client shows it: as a says, while a is not outdated.
func (a *appliedLease) show(d DeviceEntry, now time.Time) DeviceEntry {
	if a == nil || !now.Before(a.until) {
		return d
	}
	switch d.State {
	case StateOnline, StateLeased, StateBusy:
	default: // unhealthy, draining or offline: what the registry says of the device comes first
		return d
	}
	d.State = StateOnline
	if a.holder != "" {
		d.State = StateLeased
	}
	d.Holder, d.Epoch, d.Task = a.holder, a.epoch, nil
	return d
}

// shown is the entry as this client shows it.
func (e cachedEntry) shown(now time.Time) DeviceEntry { return e.applied.show(e.DeviceEntry, now) }

// applyLease shows l, granted (holder set) or released (holder empty) by its node, in the
// cache until the registry has it, at most for appliedFor and no longer than the lease lasts.
func (c *Client) applyLease(l *Lease, holder string) {
	if l == nil || l.Serial == "" || l.Node == "" {
		return
	}
	last := appliedFor
	if holder != "" {
		last = min(last, l.ExpiresAt.Sub(l.AcquiredAt)) // both the node's clock: its idle TTL
	}
	if last <= 0 {
		return
	}
	a := &appliedLease{holder: holder, epoch: l.Epoch, until: time.Now().Add(last)}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, key := range c.keysOf[l.Serial] {
		if e := c.devices[key]; e.Node == l.Node && !e.applied.after(a) {
			e.applied = a.keptOver(e.DeviceEntry)
			c.devices[key] = e
		}
	}
}

// after says whether a came after b: answers to two callers of one device can come back in
// either order.
func (a *appliedLease) after(b *appliedLease) bool {
	if a == nil {
		return false
	}
	return a.epoch > b.epoch || a.epoch == b.epoch && a.holder == "" && b.holder != ""
}
