package mcp

import (
	"context"
	"log/slog"
	"net/http"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/corral-farm/corral/broker"
)

// A session's holder is its principal and the client name it initialized with (holderFrom).
// mcp-go knows that name only on the gateway that answered initialize, and only until it
// forgets the session: another gateway, or this one after a restart, takes the session up
// without it, and its calls would be recorded, and its leases asked for, under another holder.
// So the name goes to the session's entry in the corral_sessions KV with the session's first
// request after initialize, and a gateway that takes a session up puts it back on each of its
// requests, read from there once.

// sessionClient is the streamable transport's context function: it runs on every request of a
// session, after mcp-go has found (or made) the request's session and before the message is
// handled.
func (g *Gateway) sessionClient(ctx context.Context, r *http.Request) context.Context {
	ctx = withCaller(ctx, r) // the holder's part that tells a principal's clients apart
	s, ok := mcpserver.ClientSessionFromContext(ctx).(mcpserver.SessionWithClientInfo)
	if !ok || s.SessionID() == "" { // the revision without sessions names its client on each request
		return ctx
	}
	ctx = withSessions(ctx, g.sessions) // for the logging/setLevel hook and wantsInfoLogs
	id := s.SessionID()
	if raw := s.GetClientInfo().Name; raw != "" {
		// Kept as holders show it (clientLabel), so that the session's entry, its listing and
		// a gateway taking it up agree with holderFrom; the raw name is not logged.
		name := clientLabel(raw)
		if name != "" && g.sessions.toStore(id, name) {
			if name != raw {
				g.log.Debug("the session's client name was cleaned to show in holders", "session", id, "client", name, "raw_bytes", len(raw))
			}
			g.storeClient(ctx, id, name)
		}
		return ctx
	}
	name := g.sessions.clientOf(ctx, id, func() string {
		sd, _ := g.farm.SessionDevice(ctx, id)
		return clientLabel(sd.Client) // an older gateway kept it as it came
	})
	if name != "" {
		s.SetClientInfo(mcpgo.Implementation{Name: name})
	}
	return ctx
}

// storeClient writes the session's client name to its KV entry. A failure is logged, and the
// next request tries again: meanwhile only a gateway taking the session up would lack the name.
// The log line comes once a minute at most, with the repeats since (denialLog.once): a full
// sessions bucket fails every session's every request, thousands a minute.
func (g *Gateway) storeClient(ctx context.Context, id, name string) {
	err := g.updateSessionBriefly(ctx, id, func(sd *broker.SessionDefault) bool {
		if sd.Client == name {
			return false
		}
		sd.Client = name
		return true
	})
	if err != nil {
		g.sessions.unstored(id)
		g.denials.once(denialKey{reason: "session_client_unstored"}, slog.LevelWarn,
			"the session's client name could not be kept in NATS: a gateway taking the session up would record its calls without it",
			[]any{"session", id, "err", err})
	}
}

// toStore reports whether the client name of session id is yet to be written, and from then on
// takes it as written, so that one request writes it.
func (s *sessions) toStore(id, name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	ls, ok := s.live[id]
	if !ok || ls.stored && ls.client == name {
		return false
	}
	ls.client, ls.stored = name, true
	return true
}

// unstored notes that the name of session id was not written after all.
func (s *sessions) unstored(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ls, ok := s.live[id]; ok {
		ls.stored = false
	}
}

// clientOf returns the client name of session id, read (from NATS) the first time this
// gateway takes the session up; its other requests meanwhile wait for that read.
func (s *sessions) clientOf(ctx context.Context, id string, read func() string) string {
	s.mu.Lock()
	ls, ok := s.live[id]
	if !ok {
		s.mu.Unlock()
		return ""
	}
	if ls.looked == nil {
		done := make(chan struct{})
		ls.looked = done
		s.mu.Unlock()
		name := read()
		s.mu.Lock()
		if ls.client == "" {
			ls.client, ls.stored = name, name != ""
		}
		close(done)
		name = ls.client
		s.mu.Unlock()
		return name
	}
	looked := ls.looked
	s.mu.Unlock()
	select {
	case <-looked:
	case <-ctx.Done():
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return ls.client
}

// minted notes that session id was initialized here: its name comes with its initialize, and
// there is nothing to read.
func (s *sessions) minted(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ls, ok := s.live[id]; ok && ls.looked == nil {
		done := make(chan struct{})
		close(done)
		ls.looked = done
	}
}
