package main

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// corral call --gateway whose gateway goes away mid-call says once what failed, not mcp-go's
// "transport error: failed to send request: failed to send request: Post …: EOF", and that
// the call may have run, with how to find its task (as corral run's steps say it).
func TestCallLostGatewaySaysTheCallMayHaveRun(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	serial := f.Devices()[0].Serial
	done := make(chan error, 1)
	go func() {
		done <- runCall(t.Context(), []string{"--gateway", f.Gateway().MCPURL, "--log-level", "error",
			"sleep", `{"serial":"` + serial + `","seconds":30}`})
	}()
	farmtest.Eventually(t, 20*time.Second, func() bool {
		d, ok := f.Gateway().Client.Device(serial)
		return ok && d.Task != nil && d.Task.Tool == "sleep"
	}, "corral call's sleep runs on %s", serial)
	f.StopGateway()
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("corral call did not end after its gateway went away")
	}
	require.Error(t, err)
	msg := err.Error()
	t.Log(msg)
	assert.Equal(t, 0, strings.Count(msg, "failed to send request"), "the error stutters: %s", msg)
	assert.NotContains(t, msg, "transport error")
	assert.Contains(t, msg, "the connection to the gateway failed after the call was sent, before its answer (")
	assert.Contains(t, msg, "sleep may have run")
	assert.Contains(t, msg, "`corral tasks --serial "+serial+" --tool sleep --limit 1` shows the newest sleep task")
}
