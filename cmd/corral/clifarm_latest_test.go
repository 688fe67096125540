package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// corral call get_latest_task without --gateway finds the task of the previous corral call:
// each command is a new in-process session, so the latest task is kept as the CLI holder's,
// in NATS, as a gateway keeps a client's without a session. (It said "no task yet", always.)
func TestCallGetLatestTaskFindsThePreviousCall(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	serial := f.Devices()[0].Serial
	nats := []string{"--nats-url", f.URL, "--log-level", "error"}
	latest := func(via []string) string {
		t.Helper()
		var out string
		var err error
		stderr := captureStderr(t, func() {
			out = captureStdout(t, func() {
				err = runCall(t.Context(), append(via, "get_latest_task", `{"includeSteps":false}`))
			})
		})
		require.NoError(t, err, "corral call %s get_latest_task: %s", strings.Join(via, " "), stderr)
		return out
	}

	var last string
	for tool, args := range map[string]string{"home": `{"serial":"` + serial + `"}`, "tap_xy": `{"serial":"` + serial + `","x":0.5,"y":0.5}`} {
		captureStdout(t, func() { require.NoError(t, runCall(t.Context(), append(nats, tool, args))) })
		got := latest(nats)
		assert.Contains(t, got, `"tool":"`+tool+`"`)
		assert.Contains(t, got, `"serial":"`+serial+`"`)
		assert.Contains(t, got, `"holder":"anonymous (corral-cli)"`)
		last = tool
	}
	// A gateway without a policy keys a client without a session the same way: the CLI's
	// latest task is found through it too.
	assert.Contains(t, latest([]string{"--gateway", f.Gateway().MCPURL, "--log-level", "error"}), `"tool":"`+last+`"`)
}
