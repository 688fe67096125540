package mcp

import "time"

// SetDetachedWait sets how long g watches an agent task started without waiting before it
// answers "running" (startDetached): a test whose node must answer within it gives a loaded
// machine its time.
func SetDetachedWait(g *Gateway, d time.Duration) { g.agents.detachedWait = d }
