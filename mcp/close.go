package mcp

// Close ends what the gateway runs in the background (the idle-session sweeper), so that a
// stopped gateway leaves no goroutine behind in a process that lives on. The server of
// HTTPServer calls it when it shuts down; a gateway served otherwise (Handler, MCPServer)
// calls it once that stops. Requests still in flight are served to their end. Close may be
// called more than once.
func (g *Gateway) Close() { g.sessions.close() }
