package mcp

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/corral-farm/corral/broker"
)

// Every tool call keys its latest tasks, and reads its session's entry, under its principal:
// the principal's tag (a hash) was computed each time, 7 allocations more a call. Now the key
// is one concatenation of a prefix kept per principal, and the same key as before.
func TestPrincipalPrefixesKeyAsTheBrokerOnce(t *testing.T) {
	var p principalPrefixes
	for _, principal := range []string{"alice", broker.Anonymous, "bob"} {
		assert.Equal(t, broker.UnderPrincipal(principal, "mcp-1"), p.under(principal, "mcp-1"))
	}
	// The key pinned in broker/principal_keys_pinned_test.go.
	assert.Equal(t, "p.ed02094540528598.mcp-1", p.under("alice", "mcp-1"))

	var key string // kept, as a call's key is
	allocs := testing.AllocsPerRun(100, func() { key = p.under("alice", "mcp-1") })
	assert.LessOrEqual(t, allocs, 1.0, "allocations to key %s under a known principal", key)
}
