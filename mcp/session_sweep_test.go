package mcp

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Sessions idle past their TTL are forgotten with no further request, mcp-go's state of them
// too (an idle gateway kept them all until its next request); the sweeping goroutine then
// ends, and the next session to go live starts it again. The sessions' clock is a fake one,
// moved past the TTL only once they are all checked live: a slow machine cannot make them
// idle early.
func TestIdleSessionsAreForgottenWithoutARequest(t *testing.T) {
	const ttl = 200 * time.Millisecond
	h := startHTTPGateway(t, newFakeFarm(t), Options{Limits: Limits{SessionTTL: ttl}})
	clock := &fakeClock{now: time.Now()}
	h.g.sessions.mu.Lock() // the sessions read their clock under mu
	h.g.sessions.now = clock.Now
	h.g.sessions.mu.Unlock()
	ids := []string{h.initialize(t), h.initialize(t), h.initialize(t)}
	for _, id := range ids {
		require.NoError(t, h.g.server.SendNotificationToSpecificClient(id, "notifications/message", nil))
	}
	clock.Add(ttl + time.Millisecond)

	forgotten := func() bool {
		h.g.sessions.mu.Lock()
		defer h.g.sessions.mu.Unlock()
		return len(h.g.sessions.live) == 0 && h.g.sessions.sweeper == nil
	}
	require.Eventually(t, forgotten, 20*time.Second, 10*time.Millisecond, "idle sessions still kept: %d", h.g.sessions.count())
	for _, id := range ids {
		assert.Error(t, h.g.server.SendNotificationToSpecificClient(id, "notifications/message", nil), "mcp-go kept a forgotten session")
	}
	// The sweeper logs after it lets go of the sessions: the line may come just after.
	require.Eventually(t, func() bool { return strings.Contains(h.logs.String(), "why=idle") }, 20*time.Second, 10*time.Millisecond,
		"no why=idle line: %s", h.logs.String())

	// Forgotten is not ended: the id is taken up again, and swept again once idle.
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	require.Equal(t, http.StatusOK, h.raw(t, http.MethodPost, list, map[string]string{"Mcp-Session-Id": ids[0]}).status)
	clock.Add(ttl + time.Millisecond)
	require.Eventually(t, forgotten, 20*time.Second, 10*time.Millisecond, "a session taken up again was not swept")
}
