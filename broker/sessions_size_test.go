package broker_test

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
)

// What a session keeps in the sessions' bucket, measured through a real gateway, is what the
// docs and DefaultSessionsMaxBytes's comment say (within 15 %), which size the bucket and say
// how many sessions a day it holds: a session that selects a device, runs a task on it and
// ends (DELETE) keeps its entry, its latest task, its latest task on that device and its ended
// mark. The figure said 390 bytes after the latest task on each device was kept too (640).
func TestSessionBytesAsDocumented(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	serial := f.Devices()[0].Serial
	nc, err := nats.Connect(f.URL)
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	state := func() jetstream.StreamState {
		st, err := js.Stream(t.Context(), "KV_"+broker.SessionBucket)
		require.NoError(t, err)
		info, err := st.Info(t.Context())
		require.NoError(t, err)
		return info.State
	}

	const sessions, entries = 5, 4 // entries a session keeps
	for range sessions {
		c := f.ClientWithProtocol("claude-code", mcpgo.LATEST_LEGACY_PROTOCOL_VERSION) // a revision with sessions
		farmtest.MustCall(t, c, "select_device", map[string]any{"serial": serial})
		farmtest.MustCall(t, c, "tap_xy", map[string]any{"x": 0.5, "y": 0.5})
		farmtest.MustCall(t, c, "release_device", map[string]any{})
		require.NoError(t, c.Close()) // DELETE: the ended mark
	}
	// The latest tasks are written in the background, within a fraction of a second.
	farmtest.Eventually(t, 10*time.Second, func() bool { return state().Msgs == sessions*entries },
		"the bucket holds %d entries, want %d", state().Msgs, sessions*entries)
	measured := float64(state().Bytes) / sessions

	said := map[string]string{}
	some := regexp.MustCompile(`(?:session keeps some (\d+) bytes|some (\d+) bytes a\s+(?://\s+)?session)`)
	for _, path := range []string{"streams.go", filepath.Join("..", "docs", "operations.md")} {
		text, err := os.ReadFile(path)
		require.NoError(t, err)
		found := some.FindAllStringSubmatch(string(text), -1)
		require.NotEmpty(t, found, "%s says no session's size (some N bytes)", path)
		for _, m := range found {
			n := m[1] + m[2]
			said[path+": some "+n+" bytes"] = n
		}
	}
	for where, n := range said {
		bytes, err := strconv.ParseFloat(n, 64)
		require.NoError(t, err)
		assert.Less(t, math.Abs(bytes-measured)/measured, 0.15, "%s; a session keeps %.0f bytes", where, measured)
	}
}
