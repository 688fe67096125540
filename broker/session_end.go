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

// endedPrefix starts the SessionBucket keys that mark MCP sessions their clients ended with
// DELETE: "ended." and the session id. A key of its own, not a field of the session's entry:
// select_device writes that entry whole, and gateways watch the marks alone (a watch of the
// whole bucket would bring every gateway each select_device and each task's latest_ key).
// A mark expires with the bucket's entries, 24 h after it was written.
const endedPrefix = "ended."

// sessionEnd is the value of an ended mark.
type sessionEnd struct {
	At time.Time `json:"at"`
}

// EndSession marks an MCP session ended for the whole farm: every gateway refuses its id from
// then on (SessionEnded, FollowEndedSessions).
func (c *Client) EndSession(ctx context.Context, session string) error {
	if !validToken(session) {
		return fmt.Errorf("session id %q cannot be a key", session)
	}
	b, _ := json.Marshal(sessionEnd{At: time.Now().UTC()})
	if _, err := c.stores.Sessions.Put(ctx, endedPrefix+session, b); err != nil {
		if SessionsFull(err) { // sending it again would not help
			return sessionWriteErr("marking the session ended in NATS", err)
		}
		return fmt.Errorf("marking the session ended in NATS: %w; send DELETE again", err)
	}
	return nil
}

// SessionEnded reads whether session was ended; an error when NATS could not tell.
func (c *Client) SessionEnded(ctx context.Context, session string) (bool, error) {
	if !validToken(session) {
		return false, nil
	}
	_, err := c.stores.Sessions.Get(ctx, endedPrefix+session)
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
// from a watch of the marks, made again each time the connection comes back (kvFollower), so
// that none ended meanwhile goes unseen; ended runs on one goroutine and may see an id twice.
func (c *Client) FollowEndedSessions(ended func(session string)) {
	life := c.groups.life // the client's
	reconnected := reconnects(c.nc)
	f := &kvFollower{nc: c.nc, what: SessionBucket + " (ended sessions)", log: c.log,
		watch: func(ctx context.Context) (jetstream.KeyWatcher, error) {
			return c.stores.Sessions.Watch(ctx, endedPrefix+"*", jetstream.IgnoreDeletes())
		},
		apply: func(e jetstream.KeyValueEntry) {
			if e.Operation() == jetstream.KeyValuePut {
				ended(strings.TrimPrefix(e.Key(), endedPrefix))
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
