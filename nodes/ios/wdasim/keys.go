package wdasim

import (
	"encoding/json"
	"strings"
)

// maxKeys bounds the text of one /wda/keys.
const maxKeys = 64 << 10

// keys answers POST /session/:sid/wda/keys {value: ["h", "i"]}: the text goes to the focused
// field through the keyboard. As on the iOS keyboard, "\b" deletes and "\n" presses return.
func (s *Server) keys(c *call) (any, error) {
	var a struct {
		Value json.RawMessage `json:"value"`
	}
	if err := decodeArgs(c, &a); err != nil {
		return nil, err
	}
	text, err := keysText(a.Value)
	if err != nil {
		return nil, err
	}
	if s.isScreenOff() {
		return nil, errInvalidElementState("no keyboard is shown: the screen is locked; /wda/unlock wakes it")
	}
	var run strings.Builder
	flush := func() error {
		if run.Len() == 0 {
			return nil
		}
		defer run.Reset()
		return s.phone.InputText(c.ctx, run.String())
	}
	for _, r := range text {
		key := ""
		switch {
		case r == '\b' || r == 0x7f:
			key = "DEL"
		case r == '\n':
			key = "ENTER"
		default:
			run.WriteRune(r)
			continue
		}
		if err := flush(); err != nil {
			return nil, err
		}
		if err := s.keyboardUp(c.ctx); err != nil {
			return nil, err
		}
		if err := s.phone.PressKey(c.ctx, key); err != nil {
			return nil, err
		}
	}
	return nil, flush()
}

// keysText joins the value of /wda/keys: an array of strings, or (leniently) one string.
func keysText(v json.RawMessage) (string, error) {
	var parts []string
	var one string
	switch {
	case len(v) == 0 || string(v) == "null":
		return "", errInvalidArgument(`value is required: an array of strings, e.g. ["h", "i"]`)
	case json.Unmarshal(v, &parts) == nil:
	case json.Unmarshal(v, &one) == nil:
		parts = []string{one}
	default:
		return "", errInvalidArgument(`value must be an array of strings, e.g. ["h", "i"]`)
	}
	text := strings.Join(parts, "")
	if len(text) > maxKeys {
		return "", errInvalidArgument("the text is longer than 64 KiB")
	}
	return text, nil
}

// pressButton answers POST /session/:sid/wda/pressButton {name}: home, volumeUp or volumeDown,
// in any case. iOS has no back button.
func (s *Server) pressButton(c *call) (any, error) {
	var a struct {
		Name string `json:"name"`
	}
	if err := decodeArgs(c, &a); err != nil {
		return nil, err
	}
	key := ""
	switch strings.ToLower(a.Name) {
	case "home":
		s.wake()
		key = "HOME"
	case "volumeup":
		key = "VOLUME_UP"
	case "volumedown":
		key = "VOLUME_DOWN"
	default:
		return nil, errUnknown("The button '" + clipText(a.Name) + "' is not supported. The device under test only supports the following buttons: [home, volumedown, volumeup]")
	}
	return nil, s.phone.PressKey(c.ctx, key)
}
