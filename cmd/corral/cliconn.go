package main

import (
	"context"
	"log/slog"
	"os"
	"sync/atomic"

	"github.com/nats-io/nats.go"

	"github.com/corral-farm/corral/broker"
)

// The command line reaches NATS with one connection for one thing to do, so NATS refusing it
// any subject (a role that may not, broker.Refusals) ends the command at once: realMain
// watches the refusals of the connection a command makes and prints the refusal, instead of
// letting the command wait out its --timeout.

type refusalsKey struct{}

// withRefusals returns ctx carrying r, for cliConnect, and ending at r's first refusal.
func withRefusals(ctx context.Context, r *broker.Refusals) (context.Context, context.CancelFunc) {
	return r.Watch(context.WithValue(ctx, refusalsKey{}, r))
}

// cliConnect connects a command to NATS, its refusals told to the Refusals of ctx.
func cliConnect(ctx context.Context, n natsFlags, log *slog.Logger) (*nats.Conn, error) {
	o := cliOptions(n)
	if r, ok := ctx.Value(refusalsKey{}).(*broker.Refusals); ok {
		o.Refusals = r
	}
	if err := leafContextRefusal(o); err != nil { // a site's, for the hub's leaf port (leafcontext.go)
		return nil, err
	}
	nc, err := connect(ctx, o, log)
	return nc, leafPortHint(err)
}

// localAdminContext is the admin's natscli context that corral up writes into its default
// --data directory (make run's too).
const localAdminContext = "data/nats/admin.json"

// cliOptions are how a command reaches NATS: as its flags say; else, as natscli does, as
// NATS_URL, NATS_CONTEXT or the natscli context selected with `nats context select` says;
// else, when this directory has one, with the admin context of the corral up started here, so
// that `corral devices` works beside `make run` as it is.
func cliOptions(n natsFlags) broker.ConnectOptions {
	o := n.connectOptions("corral-cli")
	if o.URL != "" || o.Context != "" || o.User != "" || o.CredsFile != "" || o.NKeyFile != "" ||
		os.Getenv("NATS_URL") != "" || os.Getenv("NATS_CONTEXT") != "" {
		return o
	}
	if sel := broker.SelectedNATSContext(); sel != "" {
		o.Context = sel
	} else if _, err := os.Stat(localAdminContext); err == nil {
		o.Context = localAdminContext
	}
	return o
}

// quietHandler drops every record once its command is done: what the in-process front door
// logs while it is taken down (a cancelled write, a closed connection) is about its own
// shutdown, never news to the user.
type quietHandler struct {
	slog.Handler
	done *atomic.Bool
}

// quietable returns a logger like log that says nothing once done is set.
func quietable(log *slog.Logger) (*slog.Logger, *atomic.Bool) {
	done := &atomic.Bool{}
	return slog.New(quietHandler{log.Handler(), done}), done
}

func (h quietHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return !h.done.Load() && h.Handler.Enabled(ctx, l)
}

func (h quietHandler) Handle(ctx context.Context, r slog.Record) error {
	if h.done.Load() {
		return nil
	}
	return h.Handler.Handle(ctx, r)
}

func (h quietHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return quietHandler{h.Handler.WithAttrs(as), h.done}
}

func (h quietHandler) WithGroup(name string) slog.Handler {
	return quietHandler{h.Handler.WithGroup(name), h.done}
}
