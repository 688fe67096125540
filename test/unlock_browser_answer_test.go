package test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/corral-farm/corral/internal/farmtest"
)

// unlock_phone on a browser is a plain success in a browser's words: QA Q13 saw "nothing to
// unlock: the device has no wake key (WAKEUP and MENU refused) and shows no lock screen…",
// internal key names, while docs/web.md said a browser refuses it.
func TestUnlockOnABrowserSaysItHasNoLockScreen(t *testing.T) {
	const serial = "web-unlock"
	f := webFarm(t, serial)
	var unlock struct {
		Message                             string
		Unlocked, Verified, PasscodeEntered bool
	}
	farmtest.Structured(t, farmtest.MustCall(t, f.Client("agent"), "unlock_phone", args("serial", serial)), &unlock)
	assert.True(t, unlock.Unlocked && unlock.Verified, "%+v", unlock)
	assert.False(t, unlock.PasscodeEntered)
	assert.Contains(t, unlock.Message, "a browser has no lock screen: nothing to unlock")
	assert.NotContains(t, unlock.Message, "WAKEUP")
}
