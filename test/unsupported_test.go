package test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// An unsupported refusal names the devices that can do it instead, not every device of a
// platform that has the tool: a node without a model leads with that cause and what to set,
// and counts none of its own devices; BACK refused by an iPhone's driver does not send the
// caller to the other iPhone.
func TestUnsupportedNamesTheDevicesThatCan(t *testing.T) {
	f, sims := iosFarm(t, 2)
	c := f.Client("agent")
	phones := sims.Devices()
	first, second := phones[0].UDID(), phones[1].UDID()

	res := farmtest.Call(t, c, "ai_query", args("serial", "n1-p1", "prompt", "what is on the screen?"))
	require.True(t, res.IsError, farmtest.Text(res))
	text := farmtest.Text(res)
	contains(t, text, "ai_query cannot run on n1-p1: its node n1 lacks configuration", "OPENAI_BASE_URL", "no other device in this farm can")
	assert.NotContains(t, text, "platforms that can")

	res = farmtest.Call(t, c, "press_button", args("serial", first, "button", "BACK"))
	require.True(t, res.IsError, farmtest.Text(res))
	text = farmtest.Text(res)
	contains(t, text, "devices that can: n1-p1 (android, online)")
	assert.NotContains(t, text, second, "sent to the other iPhone, which refuses BACK too")
	assert.NotContains(t, text, "ios (1 in this farm)")
}
