package mcp

import (
	"testing"
	"time"
)

// A test's gateway (startHTTPGateway) is closed when the test ends: its session sweeper does
// not run on, for its sessions' whole TTL, into the tests after it.
func TestTestGatewayClosesWithItsTest(t *testing.T) {
	var done chan struct{}
	t.Run("gateway", func(t *testing.T) {
		h := startHTTPGateway(t, newFakeFarm(t), Options{Limits: Limits{SessionTTL: time.Hour}})
		h.initialize(t)
		done = sweeperOf(h.g)
		if done == nil {
			t.Fatal("a live session starts the sweeper")
		}
	})
	if done != nil {
		waitClosed(t, done, "the session sweeper runs on after its test")
	}
}
