package broker

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The sessions' bucket is capped: a client opening sessions without end fills it to its cap and
// no further, and the write refused says so at once, with what to do (no wait for a timeout).
func TestSessionsBucketIsCapped(t *testing.T) {
	const maxBytes = 1 << 20
	s := openStoresWith(t, StoreOptions{SessionsMaxBytes: maxBytes})
	c := startClient(t, s, ClientOptions{})
	client := strings.Repeat("x", 2000) // a session of some 2 KiB: 4 MiB written in all
	var refused error
	n := 0
	for ; n < 2000 && refused == nil; n++ {
		refused = c.UpdateSessionDevice(call(t), fmt.Sprintf("s%d", n), func(d *SessionDefault) bool {
			d.Serial, d.Client = "d1", client
			return true
		})
	}
	require.Error(t, refused, "2000 sessions of 2 KiB each fit a bucket capped at 1 MiB")
	assert.True(t, SessionsFull(refused), "%v", refused)
	assert.Contains(t, refused.Error(), "the NATS bucket "+SessionBucket+" is full")
	assert.Contains(t, refused.Error(), "--sessions-max-bytes")
	assert.Greater(t, n, 100, "refused long before the cap")

	st, err := s.JS.Stream(call(t), kvStream(SessionBucket))
	require.NoError(t, err)
	info, err := st.Info(call(t))
	require.NoError(t, err)
	assert.EqualValues(t, maxBytes, info.Config.MaxBytes)
	assert.LessOrEqual(t, info.State.Bytes, uint64(maxBytes), "the bucket outgrew its cap")

	// What room is left takes a few ended marks (small), then they are refused too.
	for i := 0; i < 2000 && err == nil; i++ {
		err = c.EndSession(call(t), fmt.Sprintf("s%d", i))
	}
	require.Error(t, err, "ended marks fit a full bucket")
	assert.Contains(t, err.Error(), "--sessions-max-bytes")
	assert.NotContains(t, err.Error(), "send DELETE again")
}
