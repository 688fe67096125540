package android

import (
	"fmt"
	"strings"
)

// keyAliases are other names callers use for some keys.
var keyAliases = map[string]string{
	"DELETE": "DEL", "BACKSPACE": "DEL", "RETURN": "ENTER", "ESC": "ESCAPE",
	"RECENTS": "APP_SWITCH", "RECENT": "APP_SWITCH", "RECENT_APPS": "APP_SWITCH",
	"UP": "DPAD_UP", "DOWN": "DPAD_DOWN", "LEFT": "DPAD_LEFT", "RIGHT": "DPAD_RIGHT", "CENTER": "DPAD_CENTER",
	"VOLUMEUP": "VOLUME_UP", "VOLUMEDOWN": "VOLUME_DOWN", "LOCK": "POWER", "MUTE": "VOLUME_MUTE",
}

// keyCodes are the Android KeyEvent names (without KEYCODE_) the driver sends.
var keyCodes = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range strings.Fields(`HOME BACK CALL ENDCALL STAR POUND DPAD_UP DPAD_DOWN DPAD_LEFT
		DPAD_RIGHT DPAD_CENTER VOLUME_UP VOLUME_DOWN VOLUME_MUTE POWER CAMERA CLEAR COMMA PERIOD
		ALT_LEFT ALT_RIGHT SHIFT_LEFT SHIFT_RIGHT CTRL_LEFT CTRL_RIGHT META_LEFT META_RIGHT TAB SPACE
		SYM EXPLORER ENVELOPE ENTER DEL FORWARD_DEL GRAVE MINUS EQUALS LEFT_BRACKET RIGHT_BRACKET
		BACKSLASH SEMICOLON APOSTROPHE SLASH AT NUM HEADSETHOOK FOCUS PLUS MENU NOTIFICATION SEARCH
		MEDIA_PLAY_PAUSE MEDIA_STOP MEDIA_NEXT MEDIA_PREVIOUS MEDIA_REWIND MEDIA_FAST_FORWARD
		MEDIA_PLAY MEDIA_PAUSE MEDIA_RECORD MUTE PAGE_UP PAGE_DOWN ESCAPE CAPS_LOCK SCROLL_LOCK
		MOVE_HOME MOVE_END INSERT APP_SWITCH SETTINGS BRIGHTNESS_DOWN BRIGHTNESS_UP SLEEP WAKEUP
		ASSIST VOICE_ASSIST CUT COPY PASTE ALL_APPS CONTACTS CALENDAR MUSIC CALCULATOR
		SYSTEM_NAVIGATION_UP SYSTEM_NAVIGATION_DOWN SYSTEM_NAVIGATION_LEFT SYSTEM_NAVIGATION_RIGHT
		F1 F2 F3 F4 F5 F6 F7 F8 F9 F10 F11 F12`) {
		m[k] = true
	}
	for c := 'A'; c <= 'Z'; c++ {
		m[string(c)] = true
	}
	for c := '0'; c <= '9'; c++ {
		m[string(c)] = true
	}
	return m
}()

// keyCode turns a key name into the KEYCODE_ name `input keyevent` takes: case, spaces and
// hyphens do not matter, a KEYCODE_ prefix is optional, and a few aliases are known
// (BACKSPACE, RETURN, ESC, RECENTS, UP/DOWN/LEFT/RIGHT, ...). Unknown names are refused, so
// nothing but a known keycode reaches the shell.
func keyCode(name string) (string, error) {
	k := strings.ToUpper(strings.TrimSpace(name))
	k = strings.NewReplacer(" ", "_", "-", "_").Replace(k)
	k = strings.TrimPrefix(k, "KEYCODE_")
	if alias, ok := keyAliases[k]; ok {
		k = alias
	}
	if !keyCodes[k] {
		return "", fmt.Errorf("%w: unknown key %q", ErrBadArgument, clip(name, 40))
	}
	return "KEYCODE_" + k, nil
}

// clip shortens s for an error message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
