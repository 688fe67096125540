package mcp

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/broker"
)

// maxCount is the most devices one acquire_device leases together.
const maxCount = 20

// giveBack is the part of a caller's wait kept for giving back what was taken when not every
// device could be had: so that even then the answer comes within the wait (with 1,000 callers
// on two cores, giving back took up to 306 ms). A tenth of the wait, at most a second.
func giveBack(wait time.Duration) time.Duration { return min(wait/10, time.Second) }

// memberGrace is how long past its wait a member's acquire or release may take to answer.
const memberGrace = 5 * time.Second

// acquireGroup leases a.Count matching devices, all or none, and keeps them as one group.
//
// Devices are taken by the nodes' own leases, so devices on different nodes are taken one by
// one; what makes it all or none is that whatever was taken is released (in reverse) unless
// the whole group was. What keeps callers asking for overlapping sets from deadlocking is one
// global order (node, then serial): a caller first tries devices without waiting, and then
// waits only in the queue of a device that comes after every device it still holds. A chain
// of callers waiting on each other goes up that order, so it cannot close into a cycle. Waiting
// in the queue of the first busy device, not retrying, is also what keeps a caller from being
// starved: the node grants in FIFO order. Every wait is bounded by the caller's wait_seconds,
// shared by all its devices.
func (g *Gateway) acquireGroup(ctx context.Context, a *acquireArgs, match, tryable []broker.DeviceEntry, progress *callProgress) *mcpgo.CallToolResult {
	store, errRes := g.groups(ctx, "acquire_device with count")
	if errRes != nil {
		return errRes
	}
	if p := g.principal(ctx); p != nil && p.MaxDevices > 0 && a.Count > p.MaxDevices {
		return g.deny(ctx, denial{reason: reasonQuota, rule: fmt.Sprintf("max_devices %d; count %d", p.MaxDevices, a.Count)}, fmt.Sprintf("count %d is more devices than %s may hold at once (max_devices %d); waiting does not help: "+
			"ask for at most %d, or ask the farm's operator for a larger max_devices (docs/auth.md)", a.Count, p.Name, p.MaxDevices, p.MaxDevices))
	}
	wait := time.Duration(a.WaitSeconds * float64(time.Second))
	t := &groupTaker{g: g, n: a.Count, deadline: time.Now().Add(wait - giveBack(wait)), wait: wait, progress: progress,
		req:      broker.AcquireRequest{V: broker.WireVersion, Holder: holderFrom(ctx), TTLMS: int64(a.TTLSeconds * 1000)},
		refusals: map[string]string{}, busy: map[string]int{}, dropped: map[string]bool{}}
	defer t.releaseAll(ctx) // whatever is held unless the group was granted, before answering
	for {
		cands := slices.DeleteFunc(slices.Clone(tryable), func(d broker.DeviceEntry) bool { return t.dropped[d.Serial] })
		if len(cands) < t.n {
			code, why := t.tooFew(a, match, cands)
			return t.refusal(ctx, a, code, why)
		}
		t.tryFree(ctx, cands)
		if len(t.held) < t.n {
			if a.WaitSeconds == 0 || t.quota || ctx.Err() != nil {
				return t.refusal(ctx, a, t.failedCode(a), "")
			}
			retry := t.waitInOrder(ctx, cands)
			if len(t.held) < t.n {
				if !retry || ctx.Err() != nil {
					return t.refusal(ctx, a, t.failedCode(a), "")
				}
				continue
			}
		}
		if t.expiredMeanwhile() {
			return t.refusal(ctx, a, t.failedCode(a), "")
		}
		if !t.waited {
			break // taken one after another without waiting: no time for one to end meanwhile
		}
		allHeld, err := t.checkHeld(ctx, store)
		if err != nil {
			t.refusals[""] = err.Error() // first: it is about every device
			return t.refusal(ctx, a, t.failedCode(a), "")
		}
		if allHeld {
			break
		}
		if time.Until(t.deadline) < time.Millisecond || ctx.Err() != nil {
			return t.refusal(ctx, a, t.failedCode(a), "")
		}
		// A device taken early was lost during the wait: take it, or another, again.
	}
	return t.grant(ctx, store)
}

// expiredMeanwhile says whether a device taken early reached its idle expiry (on this gateway's
// clock) while the others were waited for, and notes why.
func (t *groupTaker) expiredMeanwhile() bool {
	for _, h := range t.held {
		if !h.expires.After(time.Now()) {
			t.refusals[h.dev.Serial] = fmt.Sprintf("%s: its lease expired (ttl_seconds) while the other devices were waited for; ask for a ttl_seconds longer than wait_seconds", h.dev.Serial)
			return true
		}
	}
	return false
}

// groupTaker takes the devices of one group.
type groupTaker struct {
	g        *Gateway
	n        int
	req      broker.AcquireRequest // holder and TTL; each ask sets serial and wait
	deadline time.Time             // the caller's wait, shared by every device
	held     []heldLease           // in the order taken
	refusals map[string]string     // why a device could not be had, by serial
	busy     map[string]int        // devices found busy, and how many wait for them
	dropped  map[string]bool       // devices that cannot be had now (offline, unhealthy, draining, node lost)
	quota    bool                  // the caller holds as many devices as its policy allows
	waited   bool                  // a device was waited for: one taken before may have ended meanwhile
	wait     time.Duration         // the caller's wait_seconds
	progress *callProgress         // told what the caller waits for; nil without a progress token
}

// heldLease is a device taken for the group.
type heldLease struct {
	lease broker.Lease
	dev   broker.DeviceEntry
	// expires is its idle expiry on this gateway's clock: when it was asked for plus its TTL,
	// so that another machine's clock does not matter.
	expires time.Time
}

// inOrder is the global order devices are waited for in: node, then serial.
func inOrder(x, y broker.DeviceEntry) int {
	return cmp.Or(cmp.Compare(x.Node, y.Node), cmp.Compare(x.Serial, y.Serial))
}

// tryFree asks for devices without waiting, free-looking ones first, until it holds n or has
// asked n plus maxAcquireTries. Asking without waiting cannot deadlock, in any order.
func (t *groupTaker) tryFree(ctx context.Context, cands []broker.DeviceEntry) {
	slices.SortFunc(cands, func(x, y broker.DeviceEntry) int {
		return cmp.Or(cmp.Compare(stateRank[x.State], stateRank[y.State]), inOrder(x, y))
	})
	tries := 0
	for _, d := range cands {
		if len(t.held) == t.n || tries == t.n+maxAcquireTries || t.quota || ctx.Err() != nil {
			return
		}
		if !t.holds(d.Serial) {
			tries++
			t.take(ctx, d, 0, "")
		}
	}
}

// waitInOrder completes the group by waiting: it chooses the devices with the fewest waiters,
// lets go of any device it holds past the first of them in the global order, then takes every
// device of the group in that order, waiting in each one's queue within the caller's wait. It
// says whether to try again: a device dropped out (offline, node lost) and others may do.
func (t *groupTaker) waitInOrder(ctx context.Context, cands []broker.DeviceEntry) (retry bool) {
	waitFor := slices.DeleteFunc(slices.Clone(cands), func(d broker.DeviceEntry) bool { return t.holds(d.Serial) || t.dropped[d.Serial] })
	if len(waitFor) < t.n-len(t.held) {
		return true // tryFree dropped some (the caller's own, offline): the caller counts what is left
	}
	slices.SortFunc(waitFor, func(x, y broker.DeviceEntry) int {
		return cmp.Or(cmp.Compare(t.busy[x.Serial], t.busy[y.Serial]), inOrder(x, y))
	})
	waitFor = waitFor[:t.n-len(t.held)]
	group := slices.Clone(waitFor)
	for _, h := range t.held {
		group = append(group, h.dev)
	}
	slices.SortFunc(group, inOrder)
	t.releaseFrom(ctx, slices.MinFunc(waitFor, inOrder))
	for _, d := range group {
		if t.holds(d.Serial) {
			continue
		}
		left := time.Until(t.deadline)
		if left < time.Millisecond {
			t.refusals[d.Serial] = cmp.Or(t.refusals[d.Serial], d.Serial) + "; wait_seconds ran out before its turn to be waited for"
			return false
		}
		id := newRequestID() // its place in d's queue is found by it (requestWaitText)
		t.progress.waitingFor(t.g.requestWaitText(d.Serial, id, nil, t.busy[d.Serial], t.wait,
			fmt.Sprintf(" for a group of %d (%d held)", t.n, len(t.held))))
		t.waited = true
		if !t.take(ctx, d, left, id) {
			return t.dropped[d.Serial]
		}
	}
	return false
}

// take asks d's node for its lease, waiting up to wait, and notes the answer. id names the
// request ("": the farm client names it).
func (t *groupTaker) take(ctx context.Context, d broker.DeviceEntry, wait time.Duration, id string) bool {
	asked := time.Now()
	ans, err := t.ask(ctx, d.Serial, wait, id)
	switch {
	case err != nil:
		t.refusals[d.Serial] = fmt.Sprintf("%s: %v", d.Serial, err)
		t.dropped[d.Serial] = ctx.Err() == nil
		return false
	case ans.OK && ans.Lease != nil:
		l := *ans.Lease
		t.held = append(t.held, heldLease{lease: l, dev: d, expires: asked.Add(l.ExpiresAt.Sub(l.AcquiredAt))})
		delete(t.refusals, d.Serial)
		return true
	}
	t.refusals[d.Serial] = fmt.Sprintf("%s %s (%s)", d.Serial, ans.Code, strings.TrimSuffix(ans.Error, "."))
	if ans.Lease != nil && ans.Code == broker.CodeBusy && ans.Lease.Holder.Is(t.req.Holder) {
		// The caller's own: waiting in its queue would wait for the caller to let it go.
		t.refusals[d.Serial] += ". " + strings.TrimSuffix(yoursText(ans.Lease), ".")
		t.dropped[d.Serial] = true
		return false
	}
	if ans.Lease != nil && (ans.Code == broker.CodeBusy || ans.Code == broker.CodeWaitExpired) {
		t.refusals[d.Serial] += ". " + strings.TrimSuffix(holderText(ans.Lease), ".")
	}
	switch ans.Code {
	case broker.CodeBusy, broker.CodeWaitExpired, broker.CodeQueueFull:
		t.busy[d.Serial] = 0
		if ans.Lease != nil {
			t.busy[d.Serial] = ans.Lease.QueueLen
		}
	case broker.CodeQuota:
		t.quota = true // no other device would do
	default:
		t.dropped[d.Serial] = true
	}
	return false
}

// ask sends one acquire, bounded by the caller's wait and a grace. A caller that goes away
// leaves nothing held: the farm withdraws its request, and releases a lease granted just as it
// left (broker.Client.Acquire).
func (t *groupTaker) ask(ctx context.Context, serial string, wait time.Duration, id string) (broker.LeaseAnswer, error) {
	req := t.req
	req.Serial, req.WaitMS, req.ID = serial, wait.Milliseconds(), id
	rctx, cancel := context.WithTimeout(ctx, wait+memberGrace)
	defer cancel()
	ans, err := t.g.farm.Acquire(rctx, req)
	if err != nil && ctx.Err() != nil {
		return broker.LeaseAnswer{}, fmt.Errorf("the call was cancelled: %w", ctx.Err())
	}
	return ans, err
}

func (t *groupTaker) holds(serial string) bool {
	return slices.ContainsFunc(t.held, func(h heldLease) bool { return h.dev.Serial == serial })
}

// releaseFrom lets go of the devices held from d on in the global order, last taken first.
func (t *groupTaker) releaseFrom(ctx context.Context, d broker.DeviceEntry) {
	for i := len(t.held) - 1; i >= 0; i-- {
		if h := t.held[i]; inOrder(h.dev, d) >= 0 {
			t.g.releaseMember(ctx, h.lease)
			t.held = slices.Delete(t.held, i, i+1)
		}
	}
}

// releaseAll lets go of every device held, last taken first.
func (t *groupTaker) releaseAll(ctx context.Context) {
	for i := len(t.held) - 1; i >= 0; i-- {
		t.g.releaseMember(ctx, t.held[i].lease)
	}
	t.held = nil
}

// releaseMember gives back a lease taken for a group that was not granted, even when the
// caller has gone.
func (g *Gateway) releaseMember(ctx context.Context, l broker.Lease) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), memberGrace)
	defer cancel()
	ans, err := g.farm.Release(rctx, broker.ReleaseRequest{V: broker.WireVersion, Serial: l.Serial, Handle: l.Handle, By: l.Holder.String()})
	if err != nil || !ans.OK && ans.Code != broker.CodeStaleLease {
		g.log.Warn("a device taken for a group could not be given back; its lease ends at its idle expiry", "serial", l.Serial,
			"expires_at", l.ExpiresAt, "err", err, "code", ans.Code)
	}
}

// grant keeps the group and answers with its handle.
func (t *groupTaker) grant(ctx context.Context, store groupFarm) *mcpgo.CallToolResult {
	var leases []broker.Lease
	for _, h := range slices.SortedFunc(slices.Values(t.held), func(x, y heldLease) int { return inOrder(x.dev, y.dev) }) {
		leases = append(leases, h.lease)
	}
	handle := broker.NewGroupHandle()
	grp, err := broker.NewLeaseGroup(handle, t.req.Holder, leases, time.Now())
	if err == nil {
		err = store.CreateLeaseGroup(ctx, handle, grp)
	}
	if err != nil {
		setOutcome(ctx, broker.OutcomeLost)
		return errorResult(fmt.Sprintf("acquire_device: the %d devices were leased but the group could not be kept (%v), so they were released; try again", t.n, err))
	}
	t.held = nil // the group's now
	t.g.rememberAcquired(ctx, handle)
	info := GroupInfo{Handle: handle, ID: grp.ID, Holder: grp.Holder.String(), Members: make([]MemberInfo, len(leases))}
	for i, l := range leases {
		info.Members[i] = MemberInfo{Serial: l.Serial, Node: l.Node, Epoch: l.Epoch, ExpiresAt: l.ExpiresAt, MaxUntil: l.MaxUntil, State: memberHeld}
	}
	return structuredResult(ctx, AcquireResult{Group: &info, Message: fmt.Sprintf(
		"Leased %d devices together as group %s: %s. On every call pass the device's serial and lease %q; each device's lease renews with its own calls and ends at its own expires_at (at most max_until). release_device with that lease gives them all back.",
		t.n, grp.ID, strings.Join(grp.Serials(), ", "), handle)})
}

// tooFew says why fewer devices than asked for can be had, and its code: unknown_device when
// fewer match, else that of the devices that cannot be had now (unavailableCode).
func (t *groupTaker) tooFew(a *acquireArgs, match, cands []broker.DeviceEntry) (code, why string) {
	if len(match) < t.n {
		return broker.CodeUnknownDevice, fmt.Sprintf("only %d devices match %s, and %d were asked for", len(match), a, t.n)
	}
	others := slices.DeleteFunc(slices.Clone(match), func(d broker.DeviceEntry) bool {
		return slices.ContainsFunc(cands, func(c broker.DeviceEntry) bool { return c.Serial == d.Serial })
	})
	why = farmSummary(others)
	for _, d := range others {
		if r, ok := t.refusals[d.Serial]; ok {
			why += "; " + r
		}
	}
	return unavailableCode(others), fmt.Sprintf("%d of the %d devices matching %s can be leased now, and %d were asked for (not the others: %s)", len(cands), len(match), a, t.n, why)
}

// failedCode is the code of a group the devices' answers refused: quota_exceeded at the
// caller's bound, wait_expired when wait_seconds ran out, busy otherwise.
func (t *groupTaker) failedCode(a *acquireArgs) string {
	switch {
	case t.quota:
		return broker.CodeQuota
	case a.WaitSeconds > 0:
		return broker.CodeWaitExpired
	}
	return broker.CodeBusy
}

// refusal answers a group that could not be had: what each device answered, and that nothing
// is held (acquireGroup releases what was taken before it answers).
func (t *groupTaker) refusal(ctx context.Context, a *acquireArgs, code, why string) *mcpgo.CallToolResult {
	hint := "Ask for fewer devices, or choose them by other platform, model or tags."
	if why == "" {
		switch {
		case t.quota:
			hint = "Waiting does not help: release devices you hold first, ask for fewer, or ask the farm's operator for a larger max_devices."
		case a.WaitSeconds > 0:
			hint = "Pass a longer wait_seconds, ask for fewer devices, or ask again later."
		default:
			hint = "Pass wait_seconds to wait in the queue of the first busy device, or ask again later."
		}
		var parts []string
		for _, serial := range slices.Sorted(maps.Keys(t.refusals)) {
			parts = append(parts, t.refusals[serial])
		}
		why = strings.Join(parts, "; ")
	}
	return t.g.refuse(ctx, code, fmt.Sprintf("could not lease %d devices matching %s together: %s. Nothing is held: any device taken meanwhile was given back. %s",
		t.n, a, why, hint))
}
