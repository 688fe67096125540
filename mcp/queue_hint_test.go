package mcp_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/corral-farm/corral/internal/farmtest"
)

// QA: a call refused wait_expired, whose caller waited already, was told to pass wait_seconds.
// It is told to wait longer or use another device; a busy refusal still says how to queue.
func TestWaitExpiredHintSaysWaitLonger(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	serial := f.Devices()[0].Serial
	farmtest.MustCall(t, f.Client("holder"), "acquire_device", map[string]any{"serial": serial})
	other := f.Client("other")

	busy := farmtest.Call(t, other, "home", map[string]any{"serial": serial})
	text := farmtest.Text(busy)
	assert.True(t, busy.IsError, text)
	assert.Contains(t, text, "(busy)")
	assert.Contains(t, text, "Call acquire_device with wait_seconds to queue for it, pass wait_seconds on this call, or use another device.")

	expired := farmtest.Call(t, other, "home", map[string]any{"serial": serial, "wait_seconds": 0.2})
	text = farmtest.Text(expired)
	assert.True(t, expired.IsError, text)
	assert.Contains(t, text, "(wait_expired)")
	assert.Contains(t, text, "Pass a larger wait_seconds on this call (at most 3600) to wait longer, or use another device.")
	assert.NotContains(t, text, "queue for it")
}

// QA: acquire_device of one busy device gave the same advice three times ("Call acquire_device
// with wait_seconds …, pass wait_seconds on this call …. Pass wait_seconds to queue for the
// device with the fewest waiters …"), in a pool's words for a named serial. It says it once.
func TestAcquireRefusalOfOneDeviceAdvisesOnce(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	serial := f.Devices()[0].Serial
	farmtest.MustCall(t, f.Client("holder"), "acquire_device", map[string]any{"serial": serial})

	res := farmtest.Call(t, f.Client("other"), "acquire_device", map[string]any{"serial": serial})
	text := farmtest.Text(res)
	assert.True(t, res.IsError, text)
	assert.Contains(t, text, "(busy)")
	assert.Equal(t, 1, strings.Count(text, "wait_seconds"), "the advice to queue, once: %s", text)
	assert.Contains(t, text, "Pass wait_seconds to queue for it, or use another device.")
	assert.NotContains(t, text, "fewest waiters")
}
