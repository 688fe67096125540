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
	kv := c.stores.Sessions
	for range maxSessionTries {
		var d SessionDefault
		var rev uint64
		switch e, err := kv.Get(ctx, session); {
		case err == nil:
			rev = e.Revision()
			_ = json.Unmarshal(e.Value(), &d) // a garbled entry is replaced, as SessionDevice ignores it
		case !errors.Is(err, jetstream.ErrKeyNotFound):
			return fmt.Errorf("reading session %s: %w", session, err)
		}
		if !change(&d) {
			return nil
		}
		b, _ := json.Marshal(d)
		var err error
		if rev == 0 {
			_, err = kv.Create(ctx, session, b)
		} else {
			_, err = kv.Update(ctx, session, b, rev)
		}
		switch {
		case err == nil:
			return nil
		case !errors.Is(err, jetstream.ErrKeyExists) && !isWrongLastSequence(err):
			return sessionWriteErr("writing session "+session, err)
		case ctx.Err() != nil:
			return ctx.Err()
		}
	}
	return fmt.Errorf("session %s changed %d times while this call changed it; try again", session, maxSessionTries)
}
