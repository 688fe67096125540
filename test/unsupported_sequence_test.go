package test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// A sequence refused for a step its device cannot run names the devices that can run that
// step, not those that merely have sequence: only web devices tap by selector, and this farm
// has none, so neither the Android phone nor an iPhone is offered for the other's refusal.
func TestUnsupportedSequenceNamesDevicesForItsSteps(t *testing.T) {
	f, sims := iosFarm(t, 2)
	c := f.Client("agent")
	phones := sims.Devices()
	iphone, other := phones[0].UDID(), phones[1].UDID()
	steps := []any{map[string]any{"tool_name": "tap_by_selector", "args": map[string]any{"selector": "#x"}}}

	res := farmtest.Call(t, c, "sequence", args("serial", "n1-p1", "steps", steps))
	require.True(t, res.IsError, farmtest.Text(res))
	text := farmtest.Text(res)
	contains(t, text, "tap_by_selector", "no other device in this farm can")
	assert.NotContains(t, text, iphone, "an iPhone cannot tap by selector either")
	assert.NotContains(t, text, other)

	res = farmtest.Call(t, c, "sequence", args("serial", iphone, "steps", steps))
	require.True(t, res.IsError, farmtest.Text(res))
	text = farmtest.Text(res)
	contains(t, text, "tap_by_selector", "no other device in this farm can")
	assert.NotContains(t, text, "n1-p1", "an Android phone cannot tap by selector either")
	assert.NotContains(t, text, other)
}
