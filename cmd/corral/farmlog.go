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
// So the farm client says only its errors, and all of it with --log-level debug.

// cliClientOptions are the options of a command's farm client, logging to log (farmLogger).
func cliClientOptions(log *slog.Logger) broker.ClientOptions {
	return broker.ClientOptions{Log: farmLogger(log)}
}

// farmLogger is log for a command's farm client: errors only, unless log is at debug.
func farmLogger(log *slog.Logger) *slog.Logger {
	if log.Enabled(context.Background(), slog.LevelDebug) {
		return log
	}
	return slog.New(levelFloor{log.Handler(), slog.LevelError})
}

// levelFloor drops the records below min.
type levelFloor struct {
	slog.Handler
	min slog.Level
}

func (h levelFloor) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h levelFloor) Handle(ctx context.Context, r slog.Record) error {
	if r.Level < h.min {
		return nil
	}
	return h.Handler.Handle(ctx, r)
}

func (h levelFloor) WithAttrs(as []slog.Attr) slog.Handler {
	return levelFloor{h.Handler.WithAttrs(as), h.min}
}

func (h levelFloor) WithGroup(name string) slog.Handler {
	return levelFloor{h.Handler.WithGroup(name), h.min}
}
