package test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// press_button BACK on an iPhone says that iOS has no BACK button and to use go_back, not that
// press_button is unsupported (QA Q13 saw "press_button is not supported by the driver … nor
// by other ios devices": the tool works there, only BACK is missing).
func TestPressBackOnIOSSaysGoBack(t *testing.T) {
	f, sims := iosFarm(t, 1)
	res := farmtest.Call(t, f.Client("agent"), "press_button", args("serial", sims.Devices()[0].UDID(), "button", "BACK"))
	require.True(t, res.IsError, farmtest.Text(res))
	text := farmtest.Text(res)
	contains(t, text, "iOS devices have no back button", "go_back")
	assert.NotContains(t, text, "press_button is not supported")
}
