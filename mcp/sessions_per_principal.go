package mcp

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/corral-farm/corral/broker"
)

// A session's entry in NATS (its selection, leases and client name) is keyed under its
// principal (broker.PrincipalSessionKey), and a principal keeps at most
// Limits.SessionsPerPrincipal of them: the entry that goes past the bound makes the
// principal's oldest one (by last write) go. One principal opening sessions without end filled
// the sessions' bucket for everyone, after which no one's select_device was remembered and
// their next call said "serial is required". A session whose entry went is told so on its next
// call that needed its selection (forgottenSelection).
//
// Entries under the session id alone, of Corral before this, are still read for legacyKeys
// after the gateway's start (and seed the new entry on the session's next write): the bucket
// keeps an entry 24 h after its last write, and gateways of that version may write them
// during a roll. A miss reads one only when a watch of those keys saw it or cannot vouch that
// it is absent (legacy_sessions.go).

// principalSessions is a farm that keys sessions' entries under their principal and bounds
// them (broker.Client).
type principalSessions interface {
	TrimPrincipalSessions(ctx context.Context, principal string, keep int) ([]string, error)
	SessionForgotten(ctx context.Context, principal, session string) bool
}

// legacyKeys is how long after its start a gateway still reads sessions' entries under their
// id alone: the bucket's 24 h, and an hour for a roll's older gateways to stop.
const legacyKeys = 25 * time.Hour

// sessionEntryBudget is what one session may take of the bucket when the bound is chosen for
// it: a session that selects a device, runs a task and ends keeps 640 bytes in all (its entry,
// latest tasks and ended mark, each counted and bounded per principal: principal_keys.go;
// broker/sessions_size_test.go measures it), a few more leases some 60 bytes each.
const sessionEntryBudget = 1 << 10

// SessionsPerPrincipalFor is the default of --sessions-per-principal: every principal at its
// bound fills at most half a bucket of bucketBytes (the rest a margin: a session's entry grows
// with its leases, and latest tasks on further devices), at sessionEntryBudget a session and
// each principal's note of forgotten sessions. At least 1.
func SessionsPerPrincipalFor(bucketBytes int64, principals int) int {
	share := bucketBytes / 2 / int64(max(principals, 1))
	return int(max((share-forgottenNoteBytes)/sessionEntryBudget, 1))
}

// forgottenNoteBytes is the most a principal's note of forgotten sessions takes (4096 tags of
// 11 bytes, broker.maxForgottenNoted).
const forgottenNoteBytes = 4096 * 11

// keyedSessions is the gateway's farm with sessions' entries keyed under their principal.
type keyedSessions struct {
	Farm
	g           *Gateway
	legacyUntil time.Time
	prefixes    principalPrefixes // each principal's key prefix (principal_prefixes.go)

	// legacyKeys follows the entries under ids alone, from the first miss on (legacy_sessions.go).
	legacyStart sync.Once
	legacyKeys  *broker.LegacySessions
}

// newKeyedSessions wraps farm, and sets the bound when the gateway's limits have none.
func newKeyedSessions(g *Gateway, farm Farm) *keyedSessions {
	if g.limits.SessionsPerPrincipal <= 0 {
		principals := 1 // anonymous
		if g.opts.Policy != nil {
			principals = len(g.opts.Policy.principals)
		}
		g.limits.SessionsPerPrincipal = SessionsPerPrincipalFor(broker.DefaultSessionsMaxBytes, principals)
	}
	k := &keyedSessions{Farm: farm, g: g, legacyUntil: time.Now().Add(legacyKeys)}
	k.boundLatest() // principal_keys.go
	return k
}

// sessionOwner is the principal whose sessions' entries a call reads and writes.
func (g *Gateway) sessionOwner(ctx context.Context) string {
	if p := g.principal(ctx); p != nil {
		return p.Name
	}
	return anonymous.Name
}

// key is the entry's key of id: under its principal for a protocol session and a sessionless
// caller's selection (heldSelectionKey: one principal's many client names count in its bound
// too), as it is for anything else.
func (k *keyedSessions) key(ctx context.Context, id string) (key, principal string) {
	if !strings.HasPrefix(id, sessionPrefix) && !strings.HasPrefix(id, heldSelectionPrefix) {
		return id, ""
	}
	principal = k.g.sessionOwner(ctx)
	return k.prefixes.under(principal, id), principal // broker.PrincipalSessionKey
}

func (k *keyedSessions) legacy(key, id string) bool {
	return key != id && time.Now().Before(k.legacyUntil)
}

func (k *keyedSessions) SessionDevice(ctx context.Context, id string) (broker.SessionDefault, bool) {
	key, _ := k.key(ctx, id)
	d, ok := k.Farm.SessionDevice(ctx, key)
	if !ok && k.legacyRead(key, id) {
		return k.Farm.SessionDevice(ctx, id)
	}
	return d, ok
}

func (k *keyedSessions) UpdateSessionDevice(ctx context.Context, id string, change func(d *broker.SessionDefault) bool) error {
	key, principal := k.key(ctx, id)
	var old *broker.SessionDefault
	if k.legacyRead(key, id) {
		if d, ok := k.Farm.SessionDevice(ctx, id); ok {
			old = &d
		}
	}
	created := false
	err := k.Farm.UpdateSessionDevice(ctx, key, func(d *broker.SessionDefault) bool {
		created = emptySession(*d)
		if created && old != nil {
			*d = *old
			d.Acquired, d.Kept = append([]string(nil), old.Acquired...), append([]string(nil), old.Kept...)
		}
		return change(d)
	})
	if err == nil && created && principal != "" {
		k.trim(ctx, principal)
	}
	return err
}

// emptySession says whether d is what a session without an entry reads.
func emptySession(d broker.SessionDefault) bool {
	return d.Serial == "" && d.Platform == "" && d.Lease == "" && len(d.Acquired) == 0 && len(d.Kept) == 0 && d.Client == ""
}

// trimWait bounds a trim after a session's first write; the call that wrote does not wait for
// more (the next session's write trims again).
const trimWait = 5 * time.Second

// trim drops principal's oldest entries beyond the bound, after a new one.
func (k *keyedSessions) trim(ctx context.Context, principal string) {
	ps, ok := farmAs[principalSessions](k.Farm)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), trimWait)
	defer cancel()
	keep := k.g.limits.SessionsPerPrincipal
	dropped, err := ps.TrimPrincipalSessions(ctx, principal, keep)
	if len(dropped) > 0 {
		k.g.metrics.sessionsEvicted.WithLabelValues(principal).Add(float64(len(dropped)))
		k.g.denials.once(denialKey{reason: "sessions_evicted"}, slog.LevelWarn,
			"a principal opened more sessions than --sessions-per-principal: its oldest sessions' selections were forgotten",
			[]any{"principal", principal, "sessions_per_principal", keep, "forgotten", len(dropped)})
	}
	if err != nil {
		k.g.denials.once(denialKey{reason: "sessions_untrimmed"}, slog.LevelWarn,
			"a principal's sessions beyond --sessions-per-principal could not be dropped; the next new session tries again",
			[]any{"principal", principal, "err", err})
	}
}

// forgottenSelection is the refusal of a call without serial in a session whose entry was
// dropped for its principal's bound; "" for any other.
func (g *Gateway) forgottenSelection(ctx context.Context) string {
	id := sessionID(ctx)
	ps, ok := farmAs[principalSessions](g.farm)
	if id == "" || !ok {
		return ""
	}
	if !ps.SessionForgotten(ctx, g.sessionOwner(ctx), id) {
		return ""
	}
	return fmt.Sprintf("serial is required: this session's device selection was forgotten: principal %q opened more than %d sessions "+
		"(--sessions-per-principal) and this one's was the oldest; call select_device again, or pass serial and lease "+
		"(the device it had selected stays leased until that lease expires or is released with its handle)",
		g.sessionOwner(ctx), g.limits.SessionsPerPrincipal)
}
