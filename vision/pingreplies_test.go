package vision

import (
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A client's pings of the workers share one subscription: pings in a row, each still taking
// late answers until its bound, add no subscription each; and each still learns its worker.
func TestPingsShareOneSubscription(t *testing.T) {
	conn := testConn(t)
	var direct atomic.Int32
	liveWorker(t, conn(), "A", &direct)
	nc := conn()
	c := NewClient(nc, 0)
	before := nc.NumSubscriptions()
	for range 5 {
		require.NoError(t, c.Ping(t.Context()))
	}
	assert.Equal(t, before+1, nc.NumSubscriptions(), "subscriptions after 5 pings")
	assert.True(t, c.workers.allAnswered(map[string]bool{"A": true}) && len(c.workers.silent(nil)) == 1, "the worker the pings found")
}
