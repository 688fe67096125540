package mcp

import (
	"strconv"
	"testing"

	"github.com/corral-farm/corral/nodes/tools"
)

// capMS is tool's cap on timeout_ms, in milliseconds, as its node words it.
func capMS(t *testing.T, tool string) string {
	t.Helper()
	spec, ok := tools.Lookup(tool)
	if !ok || spec.MaxTimeout <= 0 {
		t.Fatalf("tool %s has no cap on timeout_ms", tool)
	}
	return strconv.FormatInt(spec.MaxTimeout.Milliseconds(), 10)
}
