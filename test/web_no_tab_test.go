package test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/corral-farm/corral/internal/farmtest"
)

// A browser with its last tab closed is the caller's doing, not a failure: unlock_phone has
// nothing to unlock (a browser has no lock screen, and no wake key) and force_quit no app to
// quit, as get_foreground_app answers nothing in front. Before, unlock_phone was refused for
// the missing WAKEUP and MENU keys, and force_quit failed with "cannot tell which app is in
// front".
func TestBrowserWithNoTabHasNothingToUnlockOrQuit(t *testing.T) {
	const serial = "web-no-tab"
	f := webFarm(t, serial)
	c := f.Client("agent")
	farmtest.MustCall(t, c, "web_close_tab", args("serial", serial, "tabIndex", 0))
	res := farmtest.MustCall(t, c, "get_foreground_app", args("serial", serial))
	assert.Contains(t, farmtest.Text(res), "nothing is in front")

	var unlock struct {
		Message                             string
		Unlocked, Verified, PasscodeEntered bool
	}
	farmtest.Structured(t, farmtest.MustCall(t, c, "unlock_phone", args("serial", serial)), &unlock)
	assert.True(t, unlock.Unlocked && unlock.Verified, "%+v", unlock)
	assert.False(t, unlock.PasscodeEntered)
	assert.Contains(t, unlock.Message, "nothing to unlock")

	var quit struct {
		Message, PackageName, Hint string
		Quit                       bool
	}
	farmtest.Structured(t, farmtest.MustCall(t, c, "force_quit", args("serial", serial)), &quit)
	assert.False(t, quit.Quit)
	assert.Empty(t, quit.PackageName)
	assert.Contains(t, quit.Message, "no app to quit")
	assert.Contains(t, quit.Hint, "app_launch")
}
