package mcp

import (
	"context"
	"crypto/subtle"
	"fmt"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/corral-farm/corral/broker"
)

// noLeaseHeld refuses a handle no lease has, in release_device's words; never the handle.
const noLeaseHeld = "no lease held now has this handle: it expired, was released or revoked (list_leases shows the leases held; acquire_device takes a new one)"

// leaseWithHandle finds the lease of leases whose handle is handle (compared by hash, in
// constant time: the handle is a secret).
func leaseWithHandle(leases []broker.Lease, handle string) (broker.Lease, bool) {
	want := []byte(broker.HandleHash(handle))
	for _, l := range leases {
		if subtle.ConstantTimeCompare([]byte(l.HandleSHA256), want) == 1 {
			return l, true
		}
	}
	return broker.Lease{}, false
}

// abortLeaseRefused checks abort_task's lease handle before anything is sent: a group's
// must be the caller's when ownLeasesOnly (abort_lease_policy.go); a single lease's too, and
// a node must hold it: the nodes abort what runs under a handle and answer a handle they do
// not know with nothing aborted, which read as "no task is running". The farm's leases are
// read once for both. A node that does not answer may hold it: then the abort goes out.
func (g *Gateway) abortLeaseRefused(ctx context.Context, handle string) *mcpgo.CallToolResult {
	if broker.IsGroupHandle(handle) {
		return g.mayAbortUnderGroup(ctx, handle)
	}
	leases, err := g.farm.Leases(ctx)
	l, held := leaseWithHandle(leases, handle)
	if g.ownLeasesOnly(ctx) && (held || err == nil) {
		if res := g.notOwnLease(ctx, l.Holder.Principal); res != nil {
			return res
		}
	}
	if held || err != nil {
		return nil
	}
	return g.refuse(ctx, broker.CodeStaleLease, "abort_task: "+noLeaseHeld)
}

// abortGroup aborts under a group's handle: the nodes know only its members' handles, so each
// member (or the one serial names) is aborted under its own.
func (g *Gateway) abortGroup(ctx context.Context, a abortArgs) *mcpgo.CallToolResult {
	_, grp, handles, errRes := g.findGroup(ctx, "abort_task", a.Lease)
	if errRes != nil {
		return errRes
	}
	if _, ok := grp.Member(a.Serial); a.Serial != "" && !ok {
		return g.refuseBadInput(ctx, fmt.Sprintf("abort_task: device %s is not in lease group %s (its devices: %s); leave serial out to abort on all of them",
			a.Serial, grp.ID, strings.Join(grp.Serials(), ", ")))
	}
	out := AbortResult{Aborted: []string{}}
	var failed, timedOut []string
	for _, m := range grp.Members {
		if a.Serial != "" && m.Serial != a.Serial {
			continue
		}
		ans, err := g.farm.Abort(ctx, broker.AbortRequest{V: broker.WireVersion, Serial: m.Serial, TaskID: a.taskID, Lease: handles[m.Serial],
			All: a.All, By: holderFrom(ctx).String(), Tags: g.callerTags(ctx), Principal: g.abortPrincipal(ctx)})
		switch {
		case err == nil && ans.Code == broker.CodeDenied:
			return g.abortDenied(ctx, a.taskID, a.Serial, ans)
		case err != nil:
			failed = append(failed, fmt.Sprintf("%s (%v)", m.Serial, err))
		case ans.Error != "" || ans.Code != "":
			failed = append(failed, fmt.Sprintf("%s (refused, %s: %s)", m.Serial, ans.Code, ans.Error))
		default:
			out.Aborted = append(out.Aborted, ans.Aborted...)
			timedOut = append(timedOut, ans.TimedOut...)
		}
	}
	where := fmt.Sprintf("the devices of lease group %s", grp.ID)
	if a.Serial != "" {
		where = fmt.Sprintf("device %s of lease group %s", a.Serial, grp.ID)
	}
	if len(failed) > 0 {
		setOutcome(ctx, broker.OutcomeLost)
		return errorResult(withTimedOut(fmt.Sprintf("abort_task on %s: aborted %s; could not abort on %s; call abort_task again",
			where, orNone(out.Aborted), strings.Join(failed, "; ")), timedOut))
	}
	switch {
	case len(out.Aborted) == 0 && len(timedOut) > 0:
		out.Message = nothingAborted(where, timedOut)
	case len(out.Aborted) == 0 && a.taskID != "":
		return g.notRunning(ctx, a.taskID, a.Serial)
	case len(out.Aborted) == 0:
		out.Message = fmt.Sprintf("No task is currently running on %s.", where)
	default:
		out.Message = withTimedOut(fmt.Sprintf("Aborted %d task(s) on %s: %s.", len(out.Aborted), where, strings.Join(out.Aborted, ", ")), timedOut)
	}
	return structuredResult(ctx, out)
}

// orNone lists ids, or says there are none.
func orNone(ids []string) string {
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}
