package main

import (
	"context"

	"github.com/corral-farm/corral/broker"
)

// The command line's front door has one protocol session, its in-process client's, made with
// the command and gone with it: its corral_sessions entry (a selection, its leases) is only
// what this command wrote. So a key it never wrote is not read from NATS: there is nothing to
// read, and an operator's role may not read that bucket (a session's selected lease), so the
// read of every get_device_status was refused, and the refusal ended the command's context
// (broker.Refusals): `corral devices` lost the reasons of all but the first device.

// SessionDevice reads the selection of a session key this command wrote; any other has none.
func (f *cliFarm) SessionDevice(ctx context.Context, key string) (broker.SessionDefault, bool) {
	f.mu.Lock()
	wrote := f.written[key]
	f.mu.Unlock()
	if !wrote {
		return broker.SessionDefault{}, false
	}
	return f.Client.SessionDevice(ctx, key)
}

// UpdateSessionDevice writes a session key's entry, which this command may read from then on
// (taken as written before the write: a failed one may still have landed).
func (f *cliFarm) UpdateSessionDevice(ctx context.Context, key string, change func(d *broker.SessionDefault) bool) error {
	f.mu.Lock()
	f.written[key] = true
	f.mu.Unlock()
	return f.Client.UpdateSessionDevice(ctx, key, change)
}
