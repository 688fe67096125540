package mcp

import (
	"context"
	"crypto/rand"
	"maps"
	"net/http"

	"github.com/corral-farm/corral/broker"
)

// CallerHeader names one client of a principal, for holding and queueing apart from its other
// clients (two corral run processes, two CI jobs with one token), in the protocol revision
// without sessions, where nothing else tells them apart. corral's own client sends a random
// value, new for each connection; the gateway keeps and shows only its tag
// (broker.SessionTag). The header grants nothing: the lease handle is what lets a caller use
// a lease. A client without it (and without a session) is one holder with every other
// client of its principal and name, as before.
const CallerHeader = "Corral-Caller"

// maxCallerLen bounds a Corral-Caller value: a longer one is ignored.
const maxCallerLen = 256

// OwnCaller returns headers (nil: none) with a Corral-Caller of its own added, a new random
// value: one client process (corral run, corral call, corral mcp-stdio) is its own holder at
// the gateway, apart from the other clients of its principal. headers is not changed.
func OwnCaller(headers map[string]string) map[string]string {
	sent := map[string]string{CallerHeader: rand.Text()}
	maps.Copy(sent, headers)
	return sent
}

type callerKey struct{}

// withCaller keeps the tag of r's Corral-Caller header in ctx, for holderFrom.
func withCaller(ctx context.Context, r *http.Request) context.Context {
	if r == nil {
		return ctx
	}
	v := r.Header.Get(CallerHeader)
	if v == "" || len(v) > maxCallerLen {
		return ctx
	}
	return context.WithValue(ctx, callerKey{}, broker.SessionTag(v))
}

// callerTag is Holder.Session for a call: the tag of its protocol session, else of its
// Corral-Caller header; "" without either.
func callerTag(ctx context.Context) string {
	if id := sessionID(ctx); id != "" {
		return broker.SessionTag(id)
	}
	tag, _ := ctx.Value(callerKey{}).(string)
	return tag
}
