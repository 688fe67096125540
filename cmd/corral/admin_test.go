package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The operator actions given --gateway point at what works on a corral up farm: the admin's
// NATS context, by flag or NATS_CONTEXT.
func TestOperatorActionsOnAGatewayPointAtTheAdminContext(t *testing.T) {
	const gw = "http://127.0.0.1:1/mcp"
	for name, err := range map[string]error{
		"release --force": runRelease(t.Context(), []string{"sim-local-01", "--force", "--gateway", gw}),
		"drain":           runDrain(t.Context(), []string{"local", "--gateway", gw}),
		"tasks":           runTasks(t.Context(), []string{"--gateway", gw}),
	} {
		if assert.Error(t, err, name) {
			assert.Contains(t, err.Error(), "instead of --gateway "+gw+", pass --nats-context with the admin's context", name)
			assert.Contains(t, err.Error(), "--nats-context data/nats/admin.json", name)
			assert.Contains(t, err.Error(), "NATS_CONTEXT", name)
			assert.NotContains(t, err.Error(), "--nats-url", name)
		}
	}
}
