package nodes

import (
	"fmt"
	"log/slog"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
)

// A node asks a task's probe only when there is one, and it is a token (the node publishes
// nowhere else), and not for a background task (an agent task outlives its caller): those
// start whatever is there. A probe no one listens on is a caller gone; one listened on is not.
func TestCallerListensAsksOnlyAProbe(t *testing.T) {
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir()}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	nc, err := nats.Connect(ns.ClientURL())
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	n := &Node{cfg: Config{ID: "n1", NC: nc, Log: slog.New(slog.DiscardHandler)}, silence: newSilence(slog.New(slog.DiscardHandler))}
	listener, err := nats.Connect(ns.ClientURL())
	require.NoError(t, err)
	t.Cleanup(listener.Close)
	_, err = listener.Subscribe(fmt.Sprintf(broker.ProgressT, "*", "p_here"), func(*nats.Msg) {})
	require.NoError(t, err)
	require.NoError(t, listener.Flush())

	for _, tc := range []struct {
		tool, probe string
		listens     bool
	}{
		{"tap_xy", "p_gone", false},
		{"tap_xy", "p_here", true},
		{"tap_xy", "", true},
		{"tap_xy", "p_gone.x", true},
		{"tap_xy", "*", true},
		{"run_agent_task", "p_gone", true},
	} {
		got := n.callerListens(t.Context(), broker.TaskRequest{ID: "t_1", Serial: "s", Tool: tc.tool, Probe: tc.probe})
		assert.Equal(t, tc.listens, got, "%s with probe %q", tc.tool, tc.probe)
	}
}
