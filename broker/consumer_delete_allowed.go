package broker

import (
	"context"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// A KV watch is a consumer that nats.go deletes when the watch stops, or the context it was
// made with ends. A role that may not delete consumers (an operator: manageConsumers) is
// refused that: a "Publish Violation" ERROR in the server's log as a command ended (corral
// call with the operator's context, refused by design, logged two). Its watches are left to
// the connection's close instead; the server drops their ephemeral consumers itself once the
// connection has gone (5 s, its default).

// mayDeleteConsumers says whether nc's NATS user may delete the consumers of Corral's stores:
// false for a role that may delete none, true for the others and for a user of no known role.
func mayDeleteConsumers(nc *nats.Conn) bool {
	role, node, ok := RoleOfUser(nc.Opts.User)
	if !ok {
		return true
	}
	p, err := PermissionsFor(role, node)
	if err != nil {
		return true
	}
	for _, s := range allStreams {
		if permits(p.PublishAllow, p.PublishDeny, jsAPI+"CONSUMER.DELETE."+s+".any") {
			return true
		}
	}
	return false
}

// watchFor makes a KV watch with watch for a follower that ends with ctx: with ctx itself,
// unless nc's user may not delete consumers; then with a context that ctx's end cancels only
// until the watch is made, so that nats.go does not stop it (kvFollower leaves it too).
func watchFor(ctx context.Context, nc *nats.Conn, watch func(context.Context) (jetstream.KeyWatcher, error)) (jetstream.KeyWatcher, error) {
	if mayDeleteConsumers(nc) {
		return watch(ctx)
	}
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, cancel)
	w, err := watch(wctx)
	if !stop() || err != nil {
		cancel()
	}
	return w, err
}

// watchAllFor is watchFor of kv.WatchAll.
func watchAllFor(ctx context.Context, nc *nats.Conn, kv interface {
	WatchAll(context.Context, ...jetstream.WatchOpt) (jetstream.KeyWatcher, error)
}) (jetstream.KeyWatcher, error) {
	return watchFor(ctx, nc, func(ctx context.Context) (jetstream.KeyWatcher, error) { return kv.WatchAll(ctx) })
}
