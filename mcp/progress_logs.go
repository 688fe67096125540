package mcp

import (
	"context"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
)

// wantsInfoLogs says whether the caller gets info-level logging messages: one that set a level
// (logging/setLevel) above info does not, nor a request of the newest revision that declared
// none (the spec forbids them then); one that set none does, as the seed's progress goes to
// every client. mcp-go reports an unset level as its default, error: a session whose client
// set a level is noted (noteLevelSet), so that an error it set is told from none.
func wantsInfoLogs(ctx context.Context) bool {
	if info := mcpserver.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern {
		return info.LogLevel != "" && mcpgo.LoggingLevelInfo.ShouldSendTo(info.LogLevel)
	}
	s, ok := mcpserver.ClientSessionFromContext(ctx).(mcpserver.SessionWithLogging)
	if !ok {
		return false
	}
	level := s.GetLogLevel()
	if level == mcpgo.LoggingLevelError && !levelSet(ctx, s.SessionID()) {
		return true // mcp-go's default, not the client's choice
	}
	return mcpgo.LoggingLevelInfo.ShouldSendTo(level)
}

// noteLevelSet is the server's hook after a logging/setLevel it accepted: the session's client
// chose its level. The note lives with the session (sessions), and goes when it is forgotten.
func noteLevelSet(ctx context.Context, _ any, _ *mcpgo.SetLevelRequest, _ *mcpgo.EmptyResult) {
	s := mcpserver.ClientSessionFromContext(ctx)
	if live := sessionsFrom(ctx); s != nil && live != nil {
		live.noteLevelSet(s.SessionID())
	}
}

// levelSet says whether the client of session id set a logging level.
func levelSet(ctx context.Context, id string) bool {
	live := sessionsFrom(ctx)
	return live != nil && live.levelSet(id)
}

// sessionsKey carries the gateway's sessions in a session request's context (sessionClient),
// for mcp-go's hooks, which have no gateway.
type sessionsKey struct{}

func withSessions(ctx context.Context, s *sessions) context.Context {
	return context.WithValue(ctx, sessionsKey{}, s)
}

func sessionsFrom(ctx context.Context) *sessions {
	s, _ := ctx.Value(sessionsKey{}).(*sessions)
	return s
}

// noteLevelSet notes that the client of session id set a logging level.
func (s *sessions) noteLevelSet(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ls, ok := s.live[id]; ok {
		ls.levelSet = true
	}
}

// levelSet says whether the client of session id set a logging level.
func (s *sessions) levelSet(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	ls, ok := s.live[id]
	return ok && ls.levelSet
}
