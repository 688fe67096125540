package broker

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A full sessions' bucket shows in the gateway's metrics, not only in answers and logs: its
// bytes climb to its cap (corral_sessions_store_max_bytes), past the 90 % CorralSessionsStoreFull
// warns at, by the time NATS refuses a session's write. A scrape while NATS is away shows no
// sample and fails nothing.
func TestSessionsStoreMetrics(t *testing.T) {
	const maxBytes = 1 << 20
	// Small caps for the other stores: the test wants none of their room.
	s := openStoresWith(t, StoreOptions{SessionsMaxBytes: maxBytes, EventsMaxBytes: 8 << 20, ScreenshotsMaxBytes: 8 << 20})
	c := startClient(t, s, ClientOptions{})
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(NewSessionsStoreMetrics(t.Context(), s.Sessions, slog.New(slog.DiscardHandler)))
	scrape := func() map[string]float64 {
		t.Helper()
		mfs, err := reg.Gather()
		require.NoError(t, err)
		out := map[string]float64{}
		for _, mf := range mfs {
			out[mf.GetName()] = mf.GetMetric()[0].GetGauge().GetValue()
		}
		return out
	}

	empty := scrape()
	assert.Equal(t, float64(maxBytes), empty["corral_sessions_store_max_bytes"])
	assert.Less(t, empty["corral_sessions_store_bytes"], 0.1*maxBytes, "an empty bucket")

	client := strings.Repeat("x", 2000) // some 2 KiB a session
	var refused error
	for n := 0; n < 2000 && refused == nil; n++ {
		refused = c.UpdateSessionDevice(call(t), fmt.Sprintf("s%d", n), func(d *SessionDefault) bool {
			d.Serial, d.Client = "d1", client
			return true
		})
	}
	require.True(t, SessionsFull(refused), "the bucket never refused a write: %v", refused)
	full := scrape()
	assert.Equal(t, float64(maxBytes), full["corral_sessions_store_max_bytes"])
	assert.Greater(t, full["corral_sessions_store_bytes"]/full["corral_sessions_store_max_bytes"], 0.9,
		"a bucket that refuses writes is shown %.0f of %.0f bytes full", full["corral_sessions_store_bytes"], full["corral_sessions_store_max_bytes"])

	s.JS.Conn().Close()
	assert.Empty(t, scrape(), "samples without NATS")
}
