package broker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// An MCP session its client ended with DELETE is marked in SessionBucket under its principal,
// "p.<principal tag>.e.<session id>" (principal_keys.go), so that a principal's marks are
// counted and bounded (TrimPrincipalEnded): one principal's DELETEs grew the bucket without
// bound. A key of its own, not a field of the session's entry: select_device writes that entry
// whole, and gateways watch the marks alone (a watch of the whole bucket would bring every
// gateway each select_device and each task's latest key). A mark expires with the bucket's
// entries, 24 h after it was written. Marks of Corral before, "ended." and the session id, are
// still read and followed.

// endedPrefix starts the ended marks of Corral before principal keys.
const endedPrefix = "ended."

// endedKey is the key of session's ended mark: under its principal when session is named so
// (UnderPrincipal), else as Corral before keyed it; false when session cannot be a key.
func endedKey(session string) (string, bool) {
	if prefix, id, ok := cutPrincipalKey(session); ok {
		return prefix + endedPart + id, validToken(id)
	}
	return endedPrefix + session, validToken(session)
}

// TrimPrincipalEnded drops principal's oldest ended marks beyond keep and returns how many
// went: such a session is still refused by each gateway that saw its end (they keep 100,000);
// another takes it up again for its client, as its own principal's.
func (c *Client) TrimPrincipalEnded(ctx context.Context, principal string, keep int) (int, error) {
	n, err := c.purgeOldest(ctx, PrincipalPrefix(principal)+endedPart, keep)
	if err != nil {
		return 0, fmt.Errorf("the ended sessions of %s: %w", principal, err)
	}
	return n, nil
}

// sessionEnd is the value of an ended mark.
type sessionEnd struct {
	At time.Time `json:"at"`
}

// EndSession marks an MCP session ended for the whole farm: every gateway refuses its id from
// then on (SessionEnded, FollowEndedSessions). session is named under its principal
// (UnderPrincipal), or alone as Corral before named it.
func (c *Client) EndSession(ctx context.Context, session string) error {
	key, ok := endedKey(session)
	if !ok {
		return fmt.Errorf("session id %q cannot be a key", session)
	}
	b, _ := json.Marshal(sessionEnd{At: time.Now().UTC()})
	if _, err := c.stores.Sessions.Put(ctx, key, b); err != nil {
		if SessionsFull(err) { // sending it again would not help
			return sessionWriteErr("marking the session ended in NATS", err)
		}
		return fmt.Errorf("marking the session ended in NATS: %w; send DELETE again", err)
	}
	return nil
}

// SessionEnded reads whether session was ended; an error when NATS could not tell.
func (c *Client) SessionEnded(ctx context.Context, session string) (bool, error) {
	key, ok := endedKey(session)
	if !ok {
		return false, nil
	}
	_, err := c.stores.Sessions.Get(ctx, key)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, jetstream.ErrKeyNotFound):
		return false, nil
	}
	return false, fmt.Errorf("reading whether the session was ended: %w", err)
}

// FollowEndedSessions calls ended with the id of each session ended so far (within the
// bucket's TTL), then of each one ended from now on, until the client stops. It follows them
// from a watch of the marks (every principal's, and those of Corral before), made again each
// time the connection comes back (kvFollower), so that none ended meanwhile goes unseen; ended
// runs on one goroutine and may see an id twice.
func (c *Client) FollowEndedSessions(ended func(session string)) {
	life := c.groups.life // the client's
	reconnected := reconnects(c.nc)
	f := &kvFollower{nc: c.nc, what: SessionBucket + " (ended sessions)", log: c.log,
		watch: func(ctx context.Context) (jetstream.KeyWatcher, error) {
			marks := []string{endedPrefix + "*", principalSessionsPrefix + "*." + endedPart + "*"}
			return c.stores.Sessions.WatchFiltered(ctx, marks, jetstream.IgnoreDeletes())
		},
		apply: func(e jetstream.KeyValueEntry) {
			if e.Operation() == jetstream.KeyValuePut { // the session id is the key's last token
				ended(e.Key()[strings.LastIndexByte(e.Key(), '.')+1:])
			}
		},
		caughtUp: func(map[string]bool) {}, // marks that expired need not be forgotten
	}
	go func() {
		w := f.rewatch(life, reconnected)
		if w == nil {
			c.nc.RemoveStatusListener(reconnected)
			return
		}
		f.follow(life, w, reconnected)
	}()
}
