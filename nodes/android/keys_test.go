package android

import (
	"errors"
	"testing"

	"github.com/corral-farm/corral/nodes"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/tools"
)

// *nodes.Node is a device.Registry (the assertion lives here: the driver itself does not link
// the node runtime).
var _ device.Registry = (*nodes.Node)(nil)

func TestKeyCode(t *testing.T) {
	for in, want := range map[string]string{
		"HOME": "KEYCODE_HOME", "home": "KEYCODE_HOME", "KEYCODE_BACK": "KEYCODE_BACK",
		"keycode_enter": "KEYCODE_ENTER", "volume up": "KEYCODE_VOLUME_UP", "Volume-Down": "KEYCODE_VOLUME_DOWN",
		"VOLUMEUP": "KEYCODE_VOLUME_UP", "POWER": "KEYCODE_POWER", "DEL": "KEYCODE_DEL",
		"BACKSPACE": "KEYCODE_DEL", "DELETE": "KEYCODE_DEL", "RETURN": "KEYCODE_ENTER", "ESC": "KEYCODE_ESCAPE",
		"RECENTS": "KEYCODE_APP_SWITCH", "APP_SWITCH": "KEYCODE_APP_SWITCH", "MENU": "KEYCODE_MENU",
		"TAB": "KEYCODE_TAB", "SEARCH": "KEYCODE_SEARCH", "up": "KEYCODE_DPAD_UP", " a ": "KEYCODE_A",
		"7": "KEYCODE_7", "F12": "KEYCODE_F12", "LOCK": "KEYCODE_POWER",
	} {
		got, err := keyCode(in)
		if err != nil || got != want {
			t.Errorf("keyCode(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "KEYCODE_", "NOPE", "HOME; reboot", "$(reboot)", "HO\nME", "3 4", "KEYCODE_KEYCODE_HOME"} {
		if got, err := keyCode(in); !errors.Is(err, ErrBadArgument) {
			t.Errorf("keyCode(%q) = %q, %v; want ErrBadArgument", in, got, err)
		}
	}
}

// Every button the press_button tool accepts is a key the driver knows.
func TestKeyCodeKnowsEveryButton(t *testing.T) {
	for _, b := range tools.Buttons {
		if _, err := keyCode(b); err != nil {
			t.Errorf("press_button accepts %s, the driver refuses it: %v", b, err)
		}
	}
}
