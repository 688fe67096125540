package embedded_test

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/internal/logtest"
)

// A store the server cannot use fails the start at once with the server's own reason, which
// also reaches Corral's log as component=nats: it said only "not ready after 10s".
func TestUnusableStoreSaysTheServersReason(t *testing.T) {
	notADir := filepath.Join(t.TempDir(), "jetstream")
	require.NoError(t, os.WriteFile(notADir, []byte("a file where the store should be"), 0o600))
	var out logtest.Buffer
	log := slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelInfo}))
	began := time.Now()
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: notADir}, log)
	if err == nil {
		ns.Shutdown()
		t.Fatal("started on a store that is a file")
	}
	assert.Contains(t, err.Error(), "Can't start JetStream: storage directory is not a directory")
	assert.Contains(t, err.Error(), notADir)
	assert.Less(t, time.Since(began), 8*time.Second, "a fatal ends the start without waiting for the timeout")
	line := out.Line("Can't start JetStream")
	assert.Contains(t, line, "level=ERROR")
	assert.Contains(t, line, "component=nats")
}

// The server's notices go to debug, never to an operator's info log, and no secret of its
// users reaches any level: traces (a client's CONNECT carries its password) stay off.
func TestServerNoticesAreDebugAndSecretsStayOut(t *testing.T) {
	const password = "s3cret-password-of-the-node"
	var out logtest.Buffer
	log := slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir(),
		Users: []embedded.User{{Name: "node", Password: password}}}, log)
	require.NoError(t, err)
	defer func() { ns.Shutdown(); ns.WaitForShutdown() }()
	nc := connectAs(t, ns.ClientURL(), "node", password)
	nc.Close()
	bad := connectAs(t, ns.ClientURL(), "node", "wrong-"+password)
	assert.Nil(t, bad, "a wrong password is refused")
	require.Eventually(t, func() bool {
		return out.Line("Authorization Violation") != "" || out.Line("authentication error") != ""
	},
		10*time.Second, 20*time.Millisecond, "the refused login reaches the log: %s", out.String())
	for _, chosen := range []string{"Plaintext passwords detected", "Maximum payloads over"} {
		assert.Contains(t, out.Line(chosen), "level=DEBUG", "a warning about a setting Corral chose, at every start")
	}
	started := out.Line("Server is ready")
	assert.Contains(t, started, "level=DEBUG")
	assert.Contains(t, started, "component=nats")
	assert.NotContains(t, out.String(), password)
	for l := range strings.Lines(out.String()) {
		if strings.Contains(l, "component=nats") {
			assert.NotContains(t, l, "level=TRACE")
		}
	}
}

// connectAs connects to url as user, nil when the server refuses it.
func connectAs(t *testing.T, url, user, password string) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(url, nats.UserInfo(user, password), nats.MaxReconnects(0))
	if err != nil {
		return nil
	}
	return nc
}

// After kill -9 every stream's index is stale, and the server said so in two WARN lines per
// stream at the next start (twelve for Corral's), though it reads the messages back and an
// operator can do nothing. They are now DEBUG, and one INFO line says what happened. The
// stale index is made as a kill -9 leaves it: the index of an earlier stop put back.
func TestRebuildAfterAnUncleanStopIsOneInfoLine(t *testing.T) {
	dir := t.TempDir()
	index, stale := staleIndex(t, dir)
	require.NoError(t, os.WriteFile(index, stale, 0o600))

	var out logtest.Buffer
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: dir},
		slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug})))
	require.NoError(t, err)
	defer func() { ns.Shutdown(); ns.WaitForShutdown() }()
	nc, err := nats.Connect(ns.ClientURL())
	require.NoError(t, err)
	defer nc.Close()
	js, err := nc.JetStream()
	require.NoError(t, err)
	info, err := js.StreamInfo("S")
	require.NoError(t, err)
	assert.Equal(t, uint64(6), info.State.Msgs, "messages read back from the blocks")

	assert.Contains(t, out.Line("Stream state outdated"), "level=DEBUG", "the server's finding: %s", out.String())
	assert.Equal(t, 1, strings.Count(out.String(), "after an unclean stop"), "one line says it: %s", out.String())
	assert.Contains(t, out.Line("after an unclean stop"), "level=INFO")
	assert.Contains(t, out.Line("after an unclean stop"), "a full disk", "a start cannot tell kill -9 from a disk that filled")
	assert.NotContains(t, out.String(), "level=WARN", "an operator can do nothing about it")
}

// staleIndex fills stream S of a store in dir over two clean stops, and returns the path of its
// index and that index as the first stop left it: put back, it is stale, as kill -9 leaves it.
func staleIndex(t *testing.T, dir string) (index string, stale []byte) {
	t.Helper()
	publish := func(n int) {
		ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: dir}, slog.New(slog.DiscardHandler))
		require.NoError(t, err)
		defer func() { ns.Shutdown(); ns.WaitForShutdown() }()
		nc, err := nats.Connect(ns.ClientURL())
		require.NoError(t, err)
		defer nc.Close()
		js, err := nc.JetStream()
		require.NoError(t, err)
		_, err = js.AddStream(&nats.StreamConfig{Name: "S", Subjects: []string{"s"}})
		require.NoError(t, err)
		for range n {
			_, err := js.Publish("s", []byte("m"))
			require.NoError(t, err)
		}
	}
	publish(3)
	indexes, err := filepath.Glob(filepath.Join(dir, "*", "*", "streams", "S", "msgs", "index.db"))
	require.NoError(t, err)
	require.Len(t, indexes, 1, "the stream's index after a clean stop")
	stale, err = os.ReadFile(indexes[0])
	require.NoError(t, err)
	publish(3)
	return indexes[0], stale
}
