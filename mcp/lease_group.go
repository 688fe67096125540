package mcp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/broker"
)

// groupFarm is what lease groups (acquire_device with count > 1) need beyond Farm: where the
// groups are kept. broker.Client keeps them in NATS KV, so any gateway resolves any group.
type groupFarm interface {
	CreateLeaseGroup(ctx context.Context, handle string, g broker.LeaseGroup) error
	// LeaseGroup finds a handle's group; broker.ErrNotFound when there is none.
	LeaseGroup(ctx context.Context, handle string) (broker.LeaseGroup, error)
	DeleteLeaseGroup(ctx context.Context, handle string) error
	LeaseGroups(ctx context.Context) ([]broker.LeaseGroup, error)
	// MirroredLease reads a device's lease as its node mirrors it (a moment behind the node).
	MirroredLease(ctx context.Context, node, serial string) (broker.Lease, bool)
	// LeaseEnd finds the event that ended a member's lease, if the stream still has it.
	LeaseEnd(ctx context.Context, node, serial string, epoch uint64) (broker.Event, bool)
}

// Member states, as GroupInfo shows them.
const (
	memberHeld  = "held"
	memberEnded = "ended"
)

// GroupInfo is a group lease as the lease tools show it.
type GroupInfo struct {
	Handle  string       `json:"handle,omitempty" jsonschema:"Pass as lease with a member's serial; release_device with it frees all"`
	ID      string       `json:"id"`
	Holder  string       `json:"holder"`
	Members []MemberInfo `json:"members"`
}

// MemberInfo is one device of a group lease. Each member is a lease of its own: its epoch,
// idle expiry (renewed by calls on that device) and hard maximum.
type MemberInfo struct {
	Serial    string    `json:"serial"`
	Node      string    `json:"node,omitempty"`
	Epoch     uint64    `json:"epoch"`
	ExpiresAt time.Time `json:"expires_at,omitzero"`
	MaxUntil  time.Time `json:"max_until"`
	State     string    `json:"state" jsonschema:"held or ended"`
	Ended     string    `json:"ended,omitempty" jsonschema:"Why it ended"`
}

// groupStore is the farm's group store: the farm's own, under the quotas the gateway may put
// around it.
func (g *Gateway) groupStore() (groupFarm, bool) {
	return farmAs[groupFarm](g.farm)
}

// groups returns the farm's group store, or a refusal naming what asked for it.
func (g *Gateway) groups(ctx context.Context, what string) (groupFarm, *mcpgo.CallToolResult) {
	if gf, ok := g.groupStore(); ok {
		return gf, nil
	}
	return nil, g.refuse(ctx, broker.CodeUnsupported, what+": this gateway keeps no lease groups (its farm is not a NATS farm)")
}

// findGroup reads the group of a handle, or explains why there is none.
func (g *Gateway) findGroup(ctx context.Context, tool, handle string) (groupFarm, broker.LeaseGroup, map[string]string, *mcpgo.CallToolResult) {
	store, errRes := g.groups(ctx, tool)
	if errRes != nil {
		return nil, broker.LeaseGroup{}, nil, errRes
	}
	grp, err := store.LeaseGroup(ctx, handle)
	if errors.Is(err, broker.ErrNotFound) {
		return nil, grp, nil, g.noGroup(ctx, tool)
	}
	if err != nil {
		setOutcome(ctx, broker.OutcomeLost)
		return nil, grp, nil, errorResult(fmt.Sprintf("%s: %v", tool, err))
	}
	handles, err := grp.MemberHandles(handle)
	if err != nil {
		setOutcome(ctx, broker.OutcomeLost)
		return nil, grp, nil, errorResult(fmt.Sprintf("%s: group %s: %v", tool, grp.ID, err))
	}
	return store, grp, handles, nil
}

// noGroup is the answer to a group handle that no group has (or, to a caller it must not be
// told to, whose group it is: mayReleaseGroup, notInGroup).
func (g *Gateway) noGroup(ctx context.Context, tool string) *mcpgo.CallToolResult {
	return g.refuse(ctx, broker.CodeStaleLease, tool+": no lease group has this handle: it was released, or a minute has passed since its last device's lease ended (list_leases shows the leases held; acquire_device takes new ones)")
}

// memberLease turns a group handle into the lease handle of its member serial, so that a
// device tool called with the group's handle runs under that member's lease (fenced by its
// epoch on its node, renewing it). Any other handle is returned as it is.
func (g *Gateway) memberLease(ctx context.Context, tool, serial, lease string) (string, *mcpgo.CallToolResult) {
	if !broker.IsGroupHandle(lease) {
		return lease, nil
	}
	store, grp, handles, errRes := g.findGroup(ctx, "lease", lease)
	if errRes != nil {
		return "", errRes
	}
	h, ok := handles[serial]
	if !ok {
		return "", g.notInGroup(ctx, serial, grp)
	}
	// A member whose lease has surely ended is refused here, in words of the group the caller
	// named: the node would speak of the member's own lease, a handle the caller never saw.
	// It is refused as the node refuses a stale lease, by code.
	if m, _ := grp.Member(serial); g.memberSuperseded(m) {
		return "", g.toolResult(ctx, broker.TaskResult{Tool: tool, Serial: serial, Outcome: broker.OutcomeRefused, Code: broker.CodeStaleLease,
			Error: fmt.Sprintf("lease group %s no longer holds %s: its lease of it ended (%s). "+
				"release_device with the group's lease frees the rest of the group; acquire_device takes %s again",
				grp.ID, serial, g.whyEnded(ctx, store, m), serial)})
	}
	return h, nil
}

// inGroupWords puts a node's stale_lease refusal of a group member's lease in the words of the
// group the caller named (asked): the node speaks of the member's own lease, a handle the caller
// never saw. Refusals memberLease makes before the call are in these words already.
func (g *Gateway) inGroupWords(ctx context.Context, asked string, task broker.TaskRequest, res broker.TaskResult) broker.TaskResult {
	if res.Code != broker.CodeStaleLease || !broker.IsGroupHandle(asked) || task.Lease == asked {
		return res
	}
	grp := "the lease group you passed" // never its handle: a secret
	if store, ok := g.groupStore(); ok {
		if found, err := store.LeaseGroup(ctx, asked); err == nil {
			grp = "lease group " + found.ID
		}
	}
	why, ok := endedWords(res, "its lease of it")
	if !ok {
		why = res.Error // an older node's words, whole
	}
	res.Error = fmt.Sprintf("%s no longer holds %s: %s (release_device with the group's lease frees the rest of the group)", grp, task.Serial, why)
	return res
}

// memberSuperseded says whether the registry shows a member's lease surely ended: the device is
// another node's now, or at a later epoch (a node bumps it only once the lease has ended, or as
// it restarts). A registry a moment behind a grant shows an earlier epoch, never a later one.
func (g *Gateway) memberSuperseded(m broker.GroupMember) bool {
	d, ok := g.farm.Device(m.Serial)
	return ok && (d.Node != m.Node || d.Epoch > m.Epoch)
}

// groupInfo shows a group: each member held or ended (and why), by the leases the nodes hold
// (held, or else the lease mirror). Members the caller may not use are left out.
func (g *Gateway) groupInfo(ctx context.Context, store groupFarm, grp broker.LeaseGroup, held []broker.Lease) GroupInfo {
	out := GroupInfo{ID: grp.ID, Holder: grp.Holder.String(), Members: []MemberInfo{}}
	for _, m := range grp.Members {
		if !g.mayUseSerial(ctx, m.Serial) && !g.isCaller(ctx, grp.Holder.Principal) { // its own group: release_own.go
			continue
		}
		mi := MemberInfo{Serial: m.Serial, Node: m.Node, Epoch: m.Epoch, MaxUntil: m.MaxUntil, State: memberEnded}
		if l, ok := memberHeldIn(ctx, store, m, held); ok {
			mi.State, mi.ExpiresAt = memberHeld, l.ExpiresAt
		} else {
			mi.Ended = g.whyEnded(ctx, store, m)
		}
		out.Members = append(out.Members, mi)
	}
	return out
}

// memberHeldIn finds a member's lease among held, else in the lease mirror.
func memberHeldIn(ctx context.Context, store groupFarm, m broker.GroupMember, held []broker.Lease) (broker.Lease, bool) {
	mine := func(l broker.Lease) bool {
		return l.Serial == m.Serial && l.Node == m.Node && l.Public().HandleSHA256 == m.HandleSHA256
	}
	if i := slices.IndexFunc(held, mine); i >= 0 {
		return held[i], true
	}
	l, ok := store.MirroredLease(ctx, m.Node, m.Serial)
	return l, ok && mine(l)
}

// whyEnded says how a member's lease ended: its lease event, else what the registry says.
func (g *Gateway) whyEnded(ctx context.Context, store groupFarm, m broker.GroupMember) string {
	if ev, ok := store.LeaseEnd(ctx, m.Node, m.Serial, m.Epoch); ok {
		if ev.Reason != "" {
			return ev.What + ": " + ev.Reason
		}
		return ev.What
	}
	d, ok := g.farm.Device(m.Serial)
	switch {
	case !ok:
		return "the device is no longer in the farm"
	case d.State == broker.StateOffline:
		return "revoked: device offline, " + d.Reason
	case d.Node != m.Node:
		return "the device is node " + d.Node + "'s now"
	case d.Epoch > m.Epoch:
		return "the device was leased again since, or its node restarted"
	}
	return "its lease is no longer held; how it ended is not on record"
}

// markGroups shows, in a list of leases, the groups their leases belong to: each lease row
// names its group, and every group with a lease in the list is shown whole.
func (g *Gateway) markGroups(ctx context.Context, held []broker.Lease, rows []LeaseInfo) []GroupInfo {
	store, ok := g.groupStore()
	if !ok || len(rows) == 0 {
		return nil
	}
	groups, err := store.LeaseGroups(ctx)
	if err != nil {
		return nil // the leases are still worth showing
	}
	type grant struct {
		node, serial string
		epoch        uint64
	}
	row := make(map[grant]int, len(rows))
	for i, r := range rows {
		row[grant{r.Node, r.Serial, r.Epoch}] = i
	}
	var out []GroupInfo
	for _, grp := range groups {
		in := false
		for _, m := range grp.Members {
			if i, ok := row[grant{m.Node, m.Serial, m.Epoch}]; ok {
				rows[i].Group, in = grp.ID, true
			}
		}
		if in {
			out = append(out, g.groupInfo(ctx, store, grp, held))
		}
	}
	slices.SortFunc(out, func(x, y GroupInfo) int { return strings.Compare(x.ID, y.ID) })
	return out
}
