package broker

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A principal's keys are read by other gateways, of this version and the one before, and by
// the data they wrote: the same principal and id must give the same key, byte for byte.
func TestPrincipalKeysArePinned(t *testing.T) {
	assert.Equal(t, "p.ed02094540528598.", PrincipalPrefix("alice"))
	assert.Equal(t, "p.ed02094540528598.mcp-1", UnderPrincipal("alice", "mcp-1"))
	assert.Equal(t, "p.ed02094540528598.mcp-1", PrincipalSessionKey("alice", "mcp-1"))
	assert.Equal(t, "p.ed02094540528598.l.mcp-1", latestKey(UnderPrincipal("alice", "mcp-1")))
	ended, ok := endedKey(UnderPrincipal("alice", "mcp-1"))
	assert.True(t, ok)
	assert.Equal(t, "p.ed02094540528598.e.mcp-1", ended)
	assert.Equal(t, "11f78f340a138e9e", PrincipalTag(Anonymous))
}
