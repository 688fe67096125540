package broker

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Changes of one session at once all land: each is a compare-and-set of the entry's revision,
// retried on a fresh read, so none overwrites another's (a read, change, put lost all but one).
// A change that writes nothing leaves the entry alone; an id that cannot be a key is refused.
func TestUpdateSessionDeviceConcurrently(t *testing.T) {
	s := openStores(t)
	c := startClient(t, s, ClientOptions{LostAfter: time.Hour})
	const session, n = "mcp-session-cas", 8
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			errs <- c.UpdateSessionDevice(call(t), session, func(d *SessionDefault) bool {
				d.Acquired = append(d.Acquired, fmt.Sprintf("lease_%d", i))
				return true
			})
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	got, ok := c.SessionDevice(call(t), session)
	require.True(t, ok)
	slices.Sort(got.Acquired)
	assert.Equal(t, []string{"lease_0", "lease_1", "lease_2", "lease_3", "lease_4", "lease_5", "lease_6", "lease_7"}, got.Acquired)

	e, err := s.Sessions.Get(t.Context(), session)
	require.NoError(t, err)
	require.NoError(t, c.UpdateSessionDevice(call(t), session, func(*SessionDefault) bool { return false }))
	after, err := s.Sessions.Get(t.Context(), session)
	require.NoError(t, err)
	assert.Equal(t, e.Revision(), after.Revision(), "a change that writes nothing wrote")

	assert.ErrorContains(t, c.UpdateSessionDevice(call(t), "a.b", func(*SessionDefault) bool { return true }), "cannot be a key")
}
