package adbsim

import (
	"strconv"
	"strings"
)

// keycodes are Android's key codes for the names `input keyevent` takes (KEYCODE_ prefix
// optional), a common subset.
var keycodes = map[string]int{
	"HOME": 3, "BACK": 4, "CALL": 5, "ENDCALL": 6, "STAR": 17, "POUND": 18,
	"DPAD_UP": 19, "DPAD_DOWN": 20, "DPAD_LEFT": 21, "DPAD_RIGHT": 22, "DPAD_CENTER": 23,
	"VOLUME_UP": 24, "VOLUME_DOWN": 25, "POWER": 26, "CAMERA": 27, "CLEAR": 28,
	"COMMA": 55, "PERIOD": 56, "TAB": 61, "SPACE": 62, "ENTER": 66, "DEL": 67, "MENU": 82,
	"NOTIFICATION": 83, "SEARCH": 84, "MEDIA_PLAY_PAUSE": 85, "MEDIA_STOP": 86, "MEDIA_NEXT": 87,
	"MEDIA_PREVIOUS": 88, "PAGE_UP": 92, "PAGE_DOWN": 93, "ESCAPE": 111, "FORWARD_DEL": 112,
	"MOVE_HOME": 122, "MOVE_END": 123, "VOLUME_MUTE": 164, "APP_SWITCH": 187, "SLEEP": 223,
	"WAKEUP": 224,
}

// phoneKeys are the keys the simulated phone acts on itself.
var phoneKeys = map[string]bool{"HOME": true, "BACK": true, "ENTER": true, "DEL": true,
	"VOLUME_UP": true, "VOLUME_DOWN": true, "POWER": true}

// keyName turns a key argument (a name with or without KEYCODE_, or a number) into its name,
// "" when Android would not know it.
func keyName(arg string) string {
	name := strings.TrimPrefix(strings.ToUpper(arg), "KEYCODE_")
	if n, err := strconv.Atoi(name); err == nil {
		switch {
		case n >= 7 && n <= 16:
			return string(rune('0' + n - 7))
		case n >= 29 && n <= 54:
			return string(rune('A' + n - 29))
		}
		for k, v := range keycodes {
			if v == n {
				return k
			}
		}
		return ""
	}
	if _, ok := keycodes[name]; ok {
		return name
	}
	if len(name) == 1 && (name[0] >= '0' && name[0] <= '9' || name[0] >= 'A' && name[0] <= 'Z') {
		return name
	}
	return ""
}

// keyChar is the character a key types, if it types one.
func keyChar(name string) (string, bool) {
	switch {
	case len(name) == 1 && name[0] >= 'A' && name[0] <= 'Z':
		return strings.ToLower(name), true
	case len(name) == 1:
		return name, true
	case name == "SPACE":
		return " ", true
	case name == "PERIOD":
		return ".", true
	case name == "COMMA":
		return ",", true
	}
	return "", false
}

// keyevent runs `input keyevent [--longpress|--doubletap] KEY...`. Keys the phone knows act on
// it, character keys type, other known keys do nothing and unknown ones are ignored, as
// Android sends them as KEYCODE_UNKNOWN.
func keyevent(d *Device, c *call, args []string) int {
	for len(args) > 0 && strings.HasPrefix(args[0], "--") {
		args = args[1:]
	}
	if len(args) == 0 {
		return usage(c, "keyevent")
	}
	for _, a := range args {
		name := keyName(a)
		var err error
		if phoneKeys[name] {
			err = d.phone.PressKey(c.ctx, name)
		} else if ch, ok := keyChar(name); ok {
			err = d.phone.InputText(c.ctx, ch)
		}
		if st := phoneErr(c, err); st != 0 {
			return st
		}
	}
	return 0
}
