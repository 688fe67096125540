package broker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// maxSessionTries bounds the compare-and-set rounds of UpdateSessionDevice: each lost round
// means another write of the same session landed, so many in a row is a client hammering it.
const maxSessionTries = 32

// UpdateSessionDevice changes an MCP session's selected device and leases: change gets the
// stored value (the zero value if none) and says whether to write it. The write is a
// compare-and-set on the entry's revision, retried on a fresh read when another write came
// first, so two calls of one session changing it at once (two acquire_device calls) both land;
// change must therefore only depend on the value it is given.
func (c *Client) UpdateSessionDevice(ctx context.Context, session string, change func(d *SessionDefault) bool) error {
	if !validSessionKey(session) {
		return fmt.Errorf("session id %q cannot be a key", session)
	}
	c.ownLegacy.note(session) // followers of such keys count it at once (legacy_sessions.go)
	return compareAndSet(ctx, c.stores.Sessions, session, "session "+session, func(old []byte) ([]byte, bool) {
		var d SessionDefault
		if old != nil {
			_ = json.Unmarshal(old, &d) // a garbled entry is replaced, as SessionDevice ignores it
		}
		if !change(&d) {
			return nil, false
		}
		b, _ := json.Marshal(d)
		return b, true
	})
}

// compareAndSet changes key's value in kv: change gets the stored value (nil when none) and
// returns the new one, or false to leave it. The write is a compare-and-set on the entry's
// revision, retried on a fresh read when another write came first. what names the entry in
// errors.
func compareAndSet(ctx context.Context, kv jetstream.KeyValue, key, what string, change func(old []byte) ([]byte, bool)) error {
	for range maxSessionTries {
		var old []byte
		var rev uint64
		switch e, err := kv.Get(ctx, key); {
		case err == nil:
			rev, old = e.Revision(), e.Value()
		case !errors.Is(err, jetstream.ErrKeyNotFound):
			return fmt.Errorf("reading %s: %w", what, err)
		}
		b, write := change(old)
		if !write {
			return nil
		}
		var err error
		if rev == 0 {
			_, err = kv.Create(ctx, key, b)
		} else {
			_, err = kv.Update(ctx, key, b, rev)
		}
		switch {
		case err == nil:
			return nil
		case !errors.Is(err, jetstream.ErrKeyExists) && !isWrongLastSequence(err):
			return sessionWriteErr("writing "+what, err)
		case ctx.Err() != nil:
			return ctx.Err()
		}
	}
	return fmt.Errorf("%s changed %d times while this call changed it; try again", what, maxSessionTries)
}
