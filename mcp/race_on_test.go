//go:build race

package mcp

// raceEnabled: the race detector's instrumentation allocates, so allocation counts are only
// checked without it.
const raceEnabled = true
