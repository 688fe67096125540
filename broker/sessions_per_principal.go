package broker

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"
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
func PrincipalSessionKey(principal, session string) string { return UnderPrincipal(principal, session) }

// forgottenKey is the key of the note of principal's sessions whose entries were dropped.
func forgottenKey(principal string) string { return "f." + PrincipalTag(principal) }

// validSessionKey says whether k can key a session's entry: a session id as one token (the
// keys of Corral before principal keys, and a holder's selection), or PrincipalSessionKey's.
func validSessionKey(k string) bool {
	if _, session, ok := cutPrincipalKey(k); ok {
		return validToken(session)
	}
	return validToken(k)
}

// TrimPrincipalSessions drops principal's oldest session entries (by last write) beyond keep,
// noting each dropped session forgotten, and returns their ids (trimOldest).
func (c *Client) TrimPrincipalSessions(ctx context.Context, principal string, keep int) ([]string, error) {
	prefix := PrincipalPrefix(principal)
	keys, err := c.trimOldest(ctx, prefix, keep, func(key string) error {
		return c.noteForgotten(ctx, principal, strings.TrimPrefix(key, prefix))
	})
	if err != nil {
		return nil, fmt.Errorf("the sessions of %s: %w", principal, err)
	}
	for i, k := range keys {
		keys[i] = strings.TrimPrefix(k, prefix)
	}
	return keys, nil
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
