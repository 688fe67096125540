package embedded_test

import (
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/internal/logtest"
)

// When the stores' writes failed (a full disk) and Corral restarted JetStream (revive.go), the
// indexes the failure left stale are rebuilt, and the line saying so blames the failed writes,
// not "an unclean stop (kill -9, a crash)": nothing crashed. The stale index is one left by an
// earlier stop, put back while the server runs with nothing more to write (a restart then
// writes no index of its own), and the failure is the line a stream logs for a failed write.
func TestRebuildAfterFailedWritesBlamesThemNotACrash(t *testing.T) {
	dir := t.TempDir()
	index, stale := staleIndex(t, dir)

	var out logtest.Buffer
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: dir, ReviveEvery: 20 * time.Millisecond},
		slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug})))
	require.NoError(t, err)
	defer func() { ns.Shutdown(); ns.WaitForShutdown() }()
	require.Empty(t, out.Line("Stream state outdated"), "a clean start rebuilt: %s", out.String())
	require.NoError(t, os.WriteFile(index, stale, 0o600))
	ns.Errorf("JetStream stream '%s > %s' critical write error: %v", "$G", "S", "write 1.blk: no space left on device")
	deadline := time.Now().Add(30 * time.Second)
	for out.Line("JetStream restarted") == "" {
		if time.Now().After(deadline) {
			t.Fatalf("JetStream was not restarted; log:\n%s", out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}

	require.NotEmpty(t, out.Line("Stream state outdated"), "the restart rebuilt nothing; log:\n%s", out.String())
	line := out.Line("rebuilding the stores' indexes")
	require.NotEmpty(t, line, "the rebuild was not said; log:\n%s", out.String())
	assert.Contains(t, line, "level=INFO")
	assert.Contains(t, line, "writes failed")
	assert.NotContains(t, line, "kill -9")
	assert.NotContains(t, line, "crash")
	assert.Equal(t, 1, strings.Count(out.String(), "rebuilding the stores' indexes"), "one line says it: %s", out.String())

	nc, err := nats.Connect(ns.ClientURL())
	require.NoError(t, err)
	defer nc.Close()
	js, err := nc.JetStream()
	require.NoError(t, err)
	info, err := js.StreamInfo("S")
	require.NoError(t, err)
	assert.Equal(t, uint64(6), info.State.Msgs, "messages read back from the blocks")
}
