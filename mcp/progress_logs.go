package mcp

import (
	"context"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
)

// wantsInfoLogs says whether the caller gets info-level logging messages: one that set a level
// (logging/setLevel) above info does not, nor a request of the newest revision that declared
// none (the spec forbids them then); one that set none does, as the seed's progress goes to
// every client. mcp-go reports an unset level as its default, error, so a client that set
// error itself is taken as one that set none.
func wantsInfoLogs(ctx context.Context) bool {
	if info := mcpserver.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern {
		return info.LogLevel != "" && mcpgo.LoggingLevelInfo.ShouldSendTo(info.LogLevel)
	}
	s, ok := mcpserver.ClientSessionFromContext(ctx).(mcpserver.SessionWithLogging)
	if !ok {
		return false
	}
	level := s.GetLogLevel()
	return level == mcpgo.LoggingLevelError || mcpgo.LoggingLevelInfo.ShouldSendTo(level)
}
