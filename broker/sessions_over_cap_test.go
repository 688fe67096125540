package broker

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/logtest"
)

// A gateway started with --sessions-max-bytes under what the sessions' bucket already holds
// says so at start (WarnSessionsOverCap), with what it holds, the new cap, what follows and what
// to do: NATS keeps the entries and refuses every new session's write until they expire, and
// before this warning the first sign was each new session failing. The metrics show the bucket
// over its cap. A start at a cap the bucket fits says nothing.
func TestGatewayStartUnderWhatTheSessionsHoldWarns(t *testing.T) {
	nc := embeddedNATS(t)
	small := StoreOptions{EventsMaxBytes: 8 << 20, ScreenshotsMaxBytes: 8 << 20} // none of the test's room
	var log logtest.Buffer
	open := func(maxBytes int64) *Stores {
		t.Helper()
		o := small
		o.SessionsMaxBytes, o.Log = maxBytes, slog.New(slog.NewTextHandler(&log, nil))
		s, err := EnsureStores(t.Context(), nc, o)
		require.NoError(t, err)
		WarnSessionsOverCap(t.Context(), s.Sessions, o.Log)
		return s
	}
	const warning = "the sessions' bucket holds more than --sessions-max-bytes"

	s := open(4 << 20)
	value := []byte(strings.Repeat("x", 2000))
	for i := 0; i < 1100; i++ { // some 2.2 MiB
		_, err := s.Sessions.Put(call(t), fmt.Sprintf("s%d", i), value)
		require.NoError(t, err)
	}
	open(4 << 20)
	require.Empty(t, log.Line(warning), "a start at a cap the bucket fits")

	s = open(1 << 20)
	line := log.Line(warning)
	require.NotEmpty(t, line, "no warning at a start under what the bucket holds; log:\n%s", log.String())
	assert.Contains(t, line, "level=WARN")
	assert.Contains(t, line, "holds=2.")
	assert.Contains(t, line, "limit=1MiB")
	assert.Contains(t, line, "refuses every new session")
	assert.Contains(t, line, "24 h after their last write")
	assert.Contains(t, line, "raise --sessions-max-bytes")
	assert.Contains(t, line, "Sessions store full")

	// What the warning foretells: a new session's write is refused, saying why.
	c := startClient(t, s, ClientOptions{})
	err := c.UpdateSessionDevice(call(t), "new", func(d *SessionDefault) bool { d.Serial = "d1"; return true })
	require.Error(t, err, "a new session written to a bucket over its cap")
	assert.True(t, SessionsFull(err), "%v", err)

	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(NewSessionsStoreMetrics(t.Context(), s.Sessions, slog.New(slog.DiscardHandler)))
	mfs, err := reg.Gather()
	require.NoError(t, err)
	got := map[string]float64{}
	for _, mf := range mfs {
		got[mf.GetName()] = mf.GetMetric()[0].GetGauge().GetValue()
	}
	assert.Equal(t, float64(1<<20), got["corral_sessions_store_max_bytes"])
	assert.Greater(t, got["corral_sessions_store_bytes"], got["corral_sessions_store_max_bytes"], "the metrics show the bucket over its cap")
}
