package broker

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// A session's entry in SessionBucket (its selection, leases and client name) is keyed under
// its principal, "p.<principal tag>.<session id>" (PrincipalSessionKey), so that a gateway can
// count and bound one principal's entries with a subject filter: one principal opening
// sessions without end filled the bucket for everyone (4000 sessions filled 1 MiB), and from
// then on no one's select_device was remembered. TrimPrincipalSessions drops a principal's
// oldest entries beyond its bound and notes them in "f.<principal tag>" (forgottenKey), so that
// a session whose entry went can be told why (SessionForgotten).

// principalSessionsPrefix starts the keys of sessions' entries under their principal.
const principalSessionsPrefix = "p."

// maxForgottenNoted bounds the sessions a principal's forgotten note names (11 bytes each):
// older ones drop out, and their sessions get the general refusal instead.
const maxForgottenNoted = 4096

// PrincipalTag is the short tag of principal in session keys: its name may hold any
// character, a key only a few.
func PrincipalTag(principal string) string {
	sum := sha256.Sum256([]byte("corral principal tag\x00" + principal))
	return hex.EncodeToString(sum[:8])
}

// PrincipalSessionKey is the SessionBucket key of session's entry, under its principal.
func PrincipalSessionKey(principal, session string) string {
	return principalSessionsPrefix + PrincipalTag(principal) + "." + session
}

// forgottenKey is the key of the note of principal's sessions whose entries were dropped.
func forgottenKey(principal string) string { return "f." + PrincipalTag(principal) }

// validSessionKey says whether k can key a session's entry: a session id as one token (the
// keys of Corral before principal keys, and a holder's selection), or PrincipalSessionKey's.
func validSessionKey(k string) bool {
	rest, ok := strings.CutPrefix(k, principalSessionsPrefix)
	if !ok {
		return validToken(k)
	}
	tag, session, ok := strings.Cut(rest, ".")
	return ok && len(tag) == 16 && validToken(tag) && validToken(session)
}

// TrimPrincipalSessions drops principal's oldest session entries (by last write) beyond keep,
// noting each dropped session forgotten, and returns their ids. It counts the entries with a
// consumer's pending count (one small answer, whatever their number), and drops each with a
// purge of its subject, which leaves no marker to count. Two gateways trimming at once may
// drop one more than needed each.
func (c *Client) TrimPrincipalSessions(ctx context.Context, principal string, keep int) ([]string, error) {
	if keep < 1 {
		return nil, fmt.Errorf("keep %d: a principal keeps at least one session", keep)
	}
	stream := kvStream(SessionBucket)
	prefix := "$KV." + SessionBucket + "." + principalSessionsPrefix + PrincipalTag(principal) + "."
	cons, err := c.stores.JS.CreateConsumer(ctx, stream, jetstream.ConsumerConfig{
		FilterSubject: prefix + "*", DeliverPolicy: jetstream.DeliverLastPerSubjectPolicy,
		AckPolicy: jetstream.AckNonePolicy, MemoryStorage: true, InactiveThreshold: consumerIdle,
	})
	if err != nil {
		return nil, fmt.Errorf("counting the sessions of %s: %w", principal, err)
	}
	held := int(cons.CachedInfo().NumPending)
	_ = c.stores.JS.DeleteConsumer(context.WithoutCancel(ctx), stream, cons.CachedInfo().Name) // else it goes when idle
	if held <= keep {
		return nil, nil
	}
	s, err := c.stores.JS.Stream(ctx, stream)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", stream, err)
	}
	var dropped []string
	for tries := 0; held > keep && tries < 2*(held-keep)+2; tries++ {
		m, err := s.GetMsg(ctx, 1, jetstream.WithGetMsgSubject(prefix+"*"))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			break // none left
		}
		if err != nil {
			return dropped, fmt.Errorf("reading the oldest session of %s: %w", principal, err)
		}
		session := strings.TrimPrefix(m.Subject, prefix)
		if err := c.noteForgotten(ctx, principal, session); err != nil {
			return dropped, err
		}
		// A purge of the entry's subject up to this revision: a write of the session since
		// stays (KV streams deny deleting a message; a KV delete would leave a marker).
		if err := s.Purge(ctx, jetstream.WithPurgeSubject(m.Subject), jetstream.WithPurgeSequence(m.Sequence+1)); err != nil {
			return dropped, fmt.Errorf("dropping session %s of %s: %w", SessionTag(session), principal, err)
		}
		dropped = append(dropped, session)
		held--
	}
	return dropped, nil
}

// consumerIdle bounds a counting consumer left behind (its delete lost): the server removes it.
const consumerIdle = 30 * time.Second

// noteForgotten adds session's tag to principal's forgotten note (newest last, at most
// maxForgottenNoted), as a compare-and-set like UpdateSessionDevice.
func (c *Client) noteForgotten(ctx context.Context, principal, session string) error {
	tag := SessionTag(session)
	return compareAndSet(ctx, c.stores.Sessions, forgottenKey(principal), "the forgotten sessions of "+principal, func(old []byte) ([]byte, bool) {
		tags := append(strings.Fields(string(old)), tag)
		if len(tags) > maxForgottenNoted {
			tags = tags[len(tags)-maxForgottenNoted:]
		}
		return []byte(strings.Join(tags, " ")), true
	})
}

// SessionForgotten says whether session's entry was dropped by TrimPrincipalSessions (among
// the last maxForgottenNoted of its principal's).
func (c *Client) SessionForgotten(ctx context.Context, principal, session string) bool {
	e, err := c.stores.Sessions.Get(ctx, forgottenKey(principal))
	if err != nil {
		return false
	}
	tag := SessionTag(session)
	for _, t := range strings.Fields(string(e.Value())) {
		if t == tag {
			return true
		}
	}
	return false
}
