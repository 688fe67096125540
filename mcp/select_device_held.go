package mcp

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"

	"github.com/corral-farm/corral/broker"
)

// A caller without a protocol session (the 2026-07-28 revision has none) has its
// select_device remembered too, under its holder: HttpRunner clients select a device, then name
// its serial without a lease on every call, and were refused busy by their own lease ("You
// hold it"). The selection is kept in corral_sessions (gateways only read it) under a key
// derived from the whole holder, principal, client and Corral-Caller tag, so only the very
// holder the lease names finds it; the node still checks the handle, so a lease that ended is
// refused (stale_lease), never run under. Leases acquire_device took are not remembered: those
// keep requiring their handle (docs/tools.md, Leases).

// heldSelectionPrefix starts the keys of sessionless callers' selections.
const heldSelectionPrefix = "selected_"

// heldSelectionKey is the corral_sessions key of the selection of holder h, a caller without a
// protocol session (the gateway's farm keys it under the principal: keyedSessions).
func heldSelectionKey(h broker.Holder) string {
	sum := sha256.Sum256([]byte("corral held selection\x00" + h.Principal + "\x00" + h.Client + "\x00" + h.Session))
	return heldSelectionPrefix + hex.EncodeToString(sum[:16])
}

// selectionKey is where the caller's selection lives: its protocol session, else its holder.
func selectionKey(ctx context.Context) string {
	if id := sessionID(ctx); id != "" {
		return id
	}
	return heldSelectionKey(holderFrom(ctx))
}

// selection is the caller's select_device selection, by its session or, without one, by its
// holder; false when it has none.
func (g *Gateway) selection(ctx context.Context) (broker.SessionDefault, bool) {
	d, ok := g.farm.SessionDevice(ctx, selectionKey(ctx))
	return d, ok && d.Serial != ""
}

// heldSelectionLease is the handle select_device took for serial for a caller without a
// session, for its calls that name serial without a lease; "" when it took none (in a session,
// resolveDevice already uses the session's).
func (g *Gateway) heldSelectionLease(ctx context.Context, serial string) string {
	if sessionID(ctx) != "" || serial == "" {
		return ""
	}
	d, ok := g.selection(ctx)
	if !ok || d.Serial != serial {
		return ""
	}
	return d.Lease
}

// rememberHeldSelection keeps a sessionless caller's selection; it returns what to add to
// select_device's answer.
func (g *Gateway) rememberHeldSelection(ctx context.Context, dev broker.DeviceEntry, handle string) string {
	err := g.updateSessionBriefly(ctx, selectionKey(ctx), func(d *broker.SessionDefault) bool {
		// Kept: earlier selections' leases kept under a running task (keepPrevious).
		*d = broker.SessionDefault{Serial: dev.Serial, Platform: dev.Platform, Lease: handle, Kept: d.Kept}
		return true
	})
	if err != nil {
		return fmt.Sprintf(" It could not be remembered (%v): pass serial and lease on every call.", err)
	}
	return fmt.Sprintf(" This connection has no protocol session: pass serial %s on every call; calls naming it without lease run under this lease"+
		" (they are yours as %s: clients sharing that name and token are one holder unless each sends a %s header).",
		dev.Serial, holderFrom(ctx), CallerHeader)
}

// forgetEndedSelection lets go of the caller's selection's lease when a node refused it as
// stale (expired, released, revoked) on a call it served, and returns the refusal to give
// instead of the node's; "" when handle was not that selection's lease. The node speaks of
// "the lease you passed" and says to call acquire_device again, but the caller passed none:
// the selection's lease went with its call. Without a session the selection is forgotten, so
// that calls naming the device run without it; a session's keeps its device, without a lease.
func (g *Gateway) forgetEndedSelection(ctx context.Context, serial, handle string, res broker.TaskResult) string {
	if handle == "" {
		return ""
	}
	inSession := sessionID(ctx) != ""
	forgot := false
	_ = g.updateSessionBriefly(ctx, selectionKey(ctx), func(d *broker.SessionDefault) bool {
		if d.Serial != serial || subtle.ConstantTimeCompare([]byte(d.Lease), []byte(handle)) != 1 {
			return false
		}
		if inSession {
			d.Lease = "" // as release_device does (forgetSessionLease)
		} else {
			*d = broker.SessionDefault{Kept: d.Kept}
		}
		forgot = true
		return true
	})
	if !forgot {
		return ""
	}
	return selectionStaleText(serial, res, inSession)
}

// selectionStaleText words a node's stale_lease refusal of the lease the caller's selection
// gave its call: what became of it and who has the device now, then one instruction. From an
// older node, which sends no fields, its words are given whole before the instruction.
func selectionStaleText(serial string, res broker.TaskResult, inSession bool) string {
	what, ok := endedWords(res, "the lease select_device took for "+serial)
	if !ok {
		what = "the lease select_device took for " + serial + " was refused: " + res.Error
	}
	if inSession {
		return what + ". This session's selection keeps " + serial + " without a lease: call select_device again to hold it" +
			" (until then calls on it run without one)"
	}
	return what + ". The selection is forgotten: call select_device again to hold " + serial +
		" (a call naming it without a lease now runs without one)"
}

// sameLease says whether the node's view l of a device's lease is the lease of handle.
func sameLease(l *broker.Lease, handle string) bool {
	return l != nil && handle != "" && l.HandleSHA256 != "" &&
		subtle.ConstantTimeCompare([]byte(l.HandleSHA256), []byte(broker.HandleHash(handle))) == 1
}
