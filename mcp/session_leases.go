package mcp

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/broker"
)

// maxSessionLeases bounds the handles a session remembers of acquire_device: the oldest goes.
const maxSessionLeases = 8

// sessionWriteTimeout bounds the session's KV writes a call makes on its way (its client name,
// a lease it acquired): a store that takes no writes (the NATS server's disk full) then costs
// a call this much, not the call's whole deadline, and the call's answer still goes out.
const sessionWriteTimeout = 1500 * time.Millisecond

// updateSessionBriefly is Farm.UpdateSessionDevice bounded by sessionWriteTimeout.
func (g *Gateway) updateSessionBriefly(ctx context.Context, id string, change func(*broker.SessionDefault) bool) error {
	ctx, cancel := context.WithTimeout(ctx, sessionWriteTimeout)
	defer cancel()
	return g.farm.UpdateSessionDevice(ctx, id, change)
}

// sessionLease is a lease a protocol session took and still holds, as release_device without
// a lease considers it.
type sessionLease struct {
	handle  string
	serial  string   // a single lease's device; "" for a group
	group   string   // a group's id
	members []string // a group's devices
	by      string   // select_device or acquire_device
}

func (l sessionLease) String() string {
	if l.group != "" {
		return fmt.Sprintf("group %s of %s (%s)", l.group, strings.Join(l.members, ", "), l.by)
	}
	return fmt.Sprintf("the lease of %s (%s)", l.serial, l.by)
}

// covers says whether releasing l gives serial back ("": any).
func (l sessionLease) covers(serial string) bool {
	return serial == "" || l.serial == serial || slices.Contains(l.members, serial)
}

// rememberAcquired keeps a handle acquire_device granted in the caller's session, for
// release_device without a lease. Without a session there is nothing to remember.
func (g *Gateway) rememberAcquired(ctx context.Context, handle string) {
	id := sessionID(ctx)
	if id == "" {
		return
	}
	err := g.updateSessionBriefly(ctx, id, func(sd *broker.SessionDefault) bool {
		sd.Acquired = append(slices.DeleteFunc(sd.Acquired, func(h string) bool { return h == handle }), handle)
		if n := len(sd.Acquired); n > maxSessionLeases {
			sd.Acquired = slices.Clone(sd.Acquired[n-maxSessionLeases:])
		}
		return true
	})
	if err != nil {
		// Once a minute at most (denialLog.once), like the client name's (session_client.go).
		g.denials.once(denialKey{reason: "session_lease_unstored"}, slog.LevelWarn,
			"the session's lease could not be remembered: release_device must name it (pass lease); "+
				"if NATS takes no writes, check its data disk", []any{"session", id, "err", err})
	}
}

// sessionLeases are the leases the session took (its selection's, then acquire_device's) that
// are still held; when it cannot tell, it keeps them.
func (g *Gateway) sessionLeases(ctx context.Context, sd broker.SessionDefault) []sessionLease {
	held, err := g.farm.Leases(ctx)
	alive := func(handle string) (serial string, ok bool) {
		if err != nil {
			return "", true
		}
		l, ok := leaseWithHandle(held, handle)
		return l.Serial, ok
	}
	var out []sessionLease
	if sd.Lease != "" {
		if _, ok := alive(sd.Lease); ok {
			out = append(out, sessionLease{handle: sd.Lease, serial: sd.Serial, by: "select_device"})
		}
	}
	for _, h := range slices.Backward(sd.Kept) { // earlier selections kept under a task (select_device_switch.go)
		if serial, ok := alive(h); ok && h != sd.Lease {
			out = append(out, sessionLease{handle: h, serial: serial, by: "an earlier select_device"})
		}
	}
	store, hasGroups := g.groupStore()
	for _, h := range slices.Backward(sd.Acquired) {
		if h == sd.Lease {
			continue
		}
		if broker.IsGroupHandle(h) {
			if !hasGroups {
				continue
			}
			if grp, gerr := store.LeaseGroup(ctx, h); gerr == nil {
				out = append(out, sessionLease{handle: h, group: grp.ID, members: grp.Serials(), by: "acquire_device"})
			}
			continue
		}
		if serial, ok := alive(h); ok {
			out = append(out, sessionLease{handle: h, serial: serial, by: "acquire_device"})
		}
	}
	return out
}

// sessionRelease finds what release_device without a lease gives back: the one lease the
// session holds (of serial, if given). It answers lease "" when the session holds none, and
// refuses when it holds several, naming them (never their handles).
func (g *Gateway) sessionRelease(ctx context.Context, serial string) (lease string, errRes *mcpgo.CallToolResult) {
	// Without a session, the holder's: its selection and a previous one kept under a task.
	sd, ok := g.farm.SessionDevice(ctx, selectionKey(ctx))
	if !ok {
		return "", nil
	}
	var mine []sessionLease
	for _, l := range g.sessionLeases(ctx, sd) {
		if l.covers(serial) {
			mine = append(mine, l)
		}
	}
	switch len(mine) {
	case 0:
		return "", nil
	case 1:
		return mine[0].handle, nil
	}
	names := make([]string, len(mine))
	for i, l := range mine {
		names[i] = l.String()
	}
	of, pick := "", "pass lease (the handle acquire_device or select_device gave), or serial, to say which"
	if serial != "" { // several of this serial (its own lease and a group's): only a handle tells them apart
		of, pick = " of "+serial, "pass lease (the handle acquire_device or select_device gave) to say which"
	}
	return "", g.refuseBadInput(ctx, fmt.Sprintf("release_device: %s %d leases%s: %s; %s",
		holdsWho(ctx), len(mine), of, strings.Join(names, "; "), pick))
}
