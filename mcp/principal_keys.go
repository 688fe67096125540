package mcp

import (
	"context"
	"log/slog"
	"time"
)

// A principal's latest tasks and the marks of the sessions it ended are keyed under it too
// (broker.UnderPrincipal), and bounded per principal like its sessions' entries: one principal
// running tasks in session after session, or ending sessions with DELETE, grew the sessions'
// bucket past its --sessions-per-principal share (its latest-task keys and ended marks were
// not counted). It keeps the marks of its last --sessions-per-principal ended sessions
// (trimEnded) and latestPerSession latest tasks for each session it may keep
// (broker.Client.BoundLatestTasks). Keys of Corral before are still read for legacyKeys after
// the gateway's start, as sessions' entries are.

// latestPerSession is how many latest tasks a principal keeps per session of its bound: a
// session that runs tasks on one device has four (its latest task and latest agent task, and
// those on the device).
const latestPerSession = 4

// boundedLatest is a farm that bounds each principal's latest tasks (broker.Client).
type boundedLatest interface{ BoundLatestTasks(keep int) }

// boundedEnds is a farm that bounds each principal's ended marks (broker.Client).
type boundedEnds interface {
	TrimPrincipalEnded(ctx context.Context, principal string, keep int) (int, error)
}

// boundLatest bounds the principals' latest tasks in the farm, once the bound is known.
func (k *keyedSessions) boundLatest() {
	if b, ok := farmAs[boundedLatest](k.Farm); ok {
		b.BoundLatestTasks(latestPerSession * k.g.limits.SessionsPerPrincipal)
	}
}

func (k *keyedSessions) LatestTask(ctx context.Context, who string) (string, bool) {
	id, ok := k.Farm.LatestTask(ctx, k.under(ctx, who))
	if !ok && time.Now().Before(k.legacyUntil) {
		return k.Farm.LatestTask(ctx, who)
	}
	return id, ok
}

func (k *keyedSessions) SetLatestTask(ctx context.Context, who, taskID string) error {
	return k.Farm.SetLatestTask(ctx, k.under(ctx, who), taskID)
}

func (k *keyedSessions) EndSession(ctx context.Context, id string) error {
	principal := k.g.sessionOwner(ctx)
	if err := k.Farm.EndSession(ctx, k.prefixes.under(principal, id)); err != nil {
		return err
	}
	k.trimEnded(ctx, principal)
	return nil
}

func (k *keyedSessions) SessionEnded(ctx context.Context, id string) (bool, error) {
	ended, err := k.Farm.SessionEnded(ctx, k.under(ctx, id))
	if err == nil && !ended && time.Now().Before(k.legacyUntil) {
		return k.Farm.SessionEnded(ctx, id)
	}
	return ended, err
}

// under names id under the call's principal (broker.UnderPrincipal), its prefix computed once.
func (k *keyedSessions) under(ctx context.Context, id string) string {
	return k.prefixes.under(k.g.sessionOwner(ctx), id)
}

// trimEnded drops principal's oldest ended marks beyond the bound, after a new one. A
// session whose mark went is still refused by the gateways that saw it end; another one takes
// it up again, for its own principal only.
func (k *keyedSessions) trimEnded(ctx context.Context, principal string) {
	b, ok := farmAs[boundedEnds](k.Farm)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), trimWait)
	defer cancel()
	if _, err := b.TrimPrincipalEnded(ctx, principal, k.g.limits.SessionsPerPrincipal); err != nil {
		k.g.denials.once(denialKey{reason: "ended_untrimmed"}, slog.LevelWarn,
			"a principal's ended sessions' marks beyond --sessions-per-principal could not be dropped; its next DELETE tries again",
			[]any{"principal", principal, "err", err})
	}
}
