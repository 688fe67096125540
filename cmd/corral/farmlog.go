package main

import (
	"context"
	"log/slog"

	"github.com/corral-farm/corral/broker"
)

// A command's farm client (the in-process front door's view of the farm) logs what a gateway
// logs of the farm: a node lost or stopped, a JetStream delivery dropped. That is news for a
// gateway's operator, read in its log, not for the user of corral leases or corral call, whose
// terminal it cluttered (a frozen node printed level=WARN msg="node lost" … boot="" under a
// command that had nothing to do with it); what concerns the command comes back as its error.
// So the farm client says only its errors, and all of it with --log-level debug. Except what
// the command's answer is short of: an entry or record of a newer wire version it skipped (a
// device missing from corral devices) is said once, with what to upgrade (NewerWireNotice).

// cliClientOptions are the options of a command's farm client, logging to log (farmLogger).
func cliClientOptions(log *slog.Logger) broker.ClientOptions {
	return broker.ClientOptions{Log: farmLogger(log)}
}

// farmLogger is log for a command's farm client: errors and the notices of what was skipped
// for a newer wire version only, unless log is at debug.
func farmLogger(log *slog.Logger) *slog.Logger {
	if log.Enabled(context.Background(), slog.LevelDebug) {
		return log
	}
	return slog.New(levelFloor{log.Handler(), slog.LevelError, broker.NewerWireNotice})
}

// levelFloor drops the records below min, but for the warnings that pass lets through.
type levelFloor struct {
	slog.Handler
	min  slog.Level
	pass func(slog.Record) bool
}

func (h levelFloor) Enabled(ctx context.Context, l slog.Level) bool {
	return (l >= h.min || l >= slog.LevelWarn) && h.Handler.Enabled(ctx, l)
}

func (h levelFloor) Handle(ctx context.Context, r slog.Record) error {
	if r.Level < h.min && (r.Level < slog.LevelWarn || !h.pass(r)) {
		return nil
	}
	return h.Handler.Handle(ctx, r)
}

func (h levelFloor) WithAttrs(as []slog.Attr) slog.Handler {
	return levelFloor{h.Handler.WithAttrs(as), h.min, h.pass}
}

func (h levelFloor) WithGroup(name string) slog.Handler {
	return levelFloor{h.Handler.WithGroup(name), h.min, h.pass}
}
