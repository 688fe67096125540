package broker

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/logtest"
)

// A gateway's start that tightens again what an older gateway's start loosened (rollups
// allowed, bucket bounds and the sessions' cap removed, rollups on the screenshots) says so,
// once per store, naming what it restored: it did so silently. A start with nothing to restore
// says nothing.
func TestGatewayStartSaysWhatItTightenedAgain(t *testing.T) {
	nc := embeddedNATS(t)
	first := &logtest.Buffer{}
	_, err := EnsureStores(t.Context(), nc, StoreOptions{Log: slog.New(slog.NewTextHandler(first, nil))})
	require.NoError(t, err)
	assert.Empty(t, first.Line("store tightened again"), "a first start restores nothing:\n%s", first)

	// An older gateway's start: its stores as QA I found them (rollups on, no bounds).
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	loosen := func(stream string, how func(*jetstream.StreamConfig)) {
		st, err := js.Stream(t.Context(), stream)
		require.NoError(t, err)
		cfg := st.CachedInfo().Config
		how(&cfg)
		_, err = js.UpdateStream(t.Context(), cfg)
		require.NoError(t, err, stream)
	}
	loosen(kvStream(RegistryBucket), func(c *jetstream.StreamConfig) { c.AllowRollup, c.MaxBytes, c.MaxMsgSize = true, -1, -1 })
	loosen(kvStream(SessionBucket), func(c *jetstream.StreamConfig) { c.MaxBytes = -1 })
	loosen(objStream(ScreenshotBucket), func(c *jetstream.StreamConfig) { c.AllowRollup = true })

	again := &logtest.Buffer{}
	_, err = EnsureStores(t.Context(), nc, StoreOptions{Log: slog.New(slog.NewTextHandler(again, nil))})
	require.NoError(t, err)
	said := map[string]string{}
	for _, l := range strings.Split(again.String(), "\n") {
		if strings.Contains(l, "store tightened again") {
			assert.Contains(t, l, "level=INFO")
			stream := l[strings.Index(l, "stream=")+len("stream="):]
			stream = stream[:strings.IndexByte(stream, ' ')]
			assert.NotContains(t, said, stream, "said once per store")
			said[stream] = l
		}
	}
	assert.Len(t, said, 3, "the three loosened stores:\n%s", again)
	assert.Contains(t, said[kvStream(RegistryBucket)], `restored="refuses rollups (Nats-Rollup); holds at most 64MiB; takes values of at most 64KiB"`)
	assert.Contains(t, said[kvStream(SessionBucket)], `restored="holds at most 128MiB"`)
	assert.Contains(t, said[objStream(ScreenshotBucket)], `restored="refuses rollups (Nats-Rollup)"`)

	quiet := &logtest.Buffer{}
	_, err = EnsureStores(t.Context(), nc, StoreOptions{Log: slog.New(slog.NewTextHandler(quiet, nil))})
	require.NoError(t, err)
	assert.Empty(t, quiet.Line("store tightened again"), "nothing left to restore:\n%s", quiet)
}
