package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An interrupted call through --gateway names a command that finds its task's record, and
// that command takes what it is given (it named get_latest_task with a serial, which that
// tool does not take and which finds only its own session's tasks).
func TestInterruptedCallNamesACommandThatWorks(t *testing.T) {
	noNATSSettings(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel() // the interrupt
	err := newOperatorFlags("call").interrupted(ctx, "sleep", map[string]any{"serial": "s1", "seconds": 10}, context.Canceled)
	require.Error(t, err)
	_, hint, ok := strings.Cut(err.Error(), "with NATS access: corral ")
	require.True(t, ok, "no command named: %v", err)
	args := strings.Fields(hint)
	require.Equal(t, []string{"tasks", "--serial", "s1"}, args[:3], "%v", err)
	tasks := commandNamed(t, args[0])
	stderr := captureStderr(t, func() {
		err = tasks.run(t.Context(), append(args[1:], "--check-config", "--nats-url", "nats://127.0.0.1:1"))
	})
	require.NoError(t, err, "corral %s", hint)
	require.Equal(t, "configuration ok\n", stderr)
}

// Through --gateway, with the task's id known, the hint is get_task_result through the same
// gateway as the same holder (its --token-file), and that command line is one corral call
// takes, with arguments get_task_result takes. (TestCallThroughAGatewayInterruptedSaysSo runs
// it against a farm.)
func TestInterruptedCallHintKeepsTheGatewayAndToken(t *testing.T) {
	t.Setenv("CORRAL_TOKEN", "")
	token := filepath.Join(t.TempDir(), "my token")
	require.NoError(t, os.WriteFile(token, []byte("secret-token\n"), 0o600))
	o := newOperatorFlags("call")
	*o.gateway, *o.tokens.file = "http://127.0.0.1:8420/mcp", token
	ctx, cancel := context.WithCancel(t.Context())
	cancel() // the interrupt
	err := o.interrupted(ctx, "sleep", map[string]any{"serial": "s1", "seconds": 10},
		&interruptedTask{id: "t_abc", err: context.Canceled})
	require.Error(t, err)
	_, hint, ok := strings.Cut(err.Error(), "its record: corral call ")
	require.True(t, ok, "no get_task_result hint: %v", err)
	assert.Equal(t, "--gateway http://127.0.0.1:8420/mcp --token-file '"+token+"' get_task_result '{\"taskId\":\"t_abc\"}'", hint)
	assert.NotContains(t, err.Error(), "secret-token")

	// As a shell would split it: the quoted words unquoted.
	flags, quoted, _ := strings.Cut(hint, " get_task_result '")
	args := []string{"--gateway", "http://127.0.0.1:8420/mcp", "--token-file", token}
	require.Equal(t, strings.Replace(flags, "'"+token+"'", token, 1), strings.Join(args, " "))
	taskArgs := strings.TrimSuffix(quoted, "'")
	cat, err := localCatalog()
	require.NoError(t, err)
	var decoded map[string]any
	require.NoError(t, json.Unmarshal([]byte(taskArgs), &decoded))
	require.NoError(t, cat.Check("get_task_result", decoded), "get_task_result %s", taskArgs)
	stderr := captureStderr(t, func() {
		err = runCall(t.Context(), append(args, "--check-config", "get_task_result", taskArgs))
	})
	require.NoError(t, err, "corral call %s", hint)
	require.Equal(t, "configuration ok\n", stderr)
}
