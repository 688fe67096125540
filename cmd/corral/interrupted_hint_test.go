package main

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// An interrupted call through --gateway names a command that finds its task's record, and
// that command takes what it is given (it named get_latest_task with a serial, which that
// tool does not take and which finds only its own session's tasks).
func TestInterruptedCallNamesACommandThatWorks(t *testing.T) {
	t.Setenv("NATS_CONTEXT", "")
	t.Setenv("NATS_URL", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	ctx, cancel := context.WithCancel(t.Context())
	cancel() // the interrupt
	err := interrupted(ctx, "sleep", map[string]any{"serial": "s1", "seconds": 10}, context.Canceled)
	require.Error(t, err)
	_, hint, ok := strings.Cut(err.Error(), "with NATS access: corral ")
	require.True(t, ok, "no command named: %v", err)
	args := strings.Fields(hint)
	require.Equal(t, []string{"tasks", "--serial", "s1"}, args[:3], "%v", err)
	var tasks command
	for _, c := range commands() {
		if c.name == args[0] {
			tasks = c
		}
	}
	require.NotNil(t, tasks.run, "corral %s is no command", args[0])
	stderr := captureStderr(t, func() {
		err = tasks.run(t.Context(), append(args[1:], "--check-config", "--nats-url", "nats://127.0.0.1:1"))
	})
	require.NoError(t, err, "corral %s", hint)
	require.Equal(t, "configuration ok\n", stderr)
}
