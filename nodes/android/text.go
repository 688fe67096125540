package android

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"
)

// adbKeyboard is the IME the ADB_INPUT_B64 broadcast needs.
const adbKeyboard = "com.android.adbkeyboard/.AdbIME"

// InputText types text into the focused element. Printable ASCII goes through `input text`
// (spaces as %s, single-quoted, cut between the '%' and 's' of a literal "%s"); anything else
// through the ADBKeyboard IME's ADB_INPUT_B64 broadcast, base64-encoded. No byte of text
// reaches the shell unquoted. Long text is sent in pieces of at most 1000 bytes.
func (d *Driver) InputText(ctx context.Context, text string) error {
	const op = "input text"
	cmds, broadcast := textCommands(text)
	if broadcast {
		if err := d.checkADBKeyboard(ctx, op, text); err != nil {
			return err
		}
	}
	for _, cmd := range cmds {
		if !broadcast {
			if err := d.input(ctx, op, cmd); err != nil {
				return err
			}
			continue
		}
		out, err := d.shell(ctx, op, cmd)
		if err != nil {
			return err
		}
		if _, _, err := parseBroadcast(out); err != nil {
			return d.fail(ctx, op, err, "text with characters other than printable ASCII needs the ADBKeyboard IME: install it and set_ime "+adbKeyboard)
		}
	}
	return nil
}

// checkADBKeyboard refuses (ErrNoADBKeyboard: unsupported, nothing typed) unless ADBKeyboard is
// the active input method: its broadcast answers "completed" whether or not it typed, so
// without this check the text would be lost silently. The refusal names the character `input
// text` cannot type.
func (d *Driver) checkADBKeyboard(ctx context.Context, op, text string) error {
	out, err := d.shell(ctx, op, "settings get secure default_input_method")
	if err != nil {
		return err
	}
	if active := strings.TrimSpace(out); active != adbKeyboard {
		return d.fail(ctx, op, fmt.Errorf("%w: the text holds %s, which `input text` cannot type (it types printable ASCII only); such text is typed by the ADBKeyboard input method, and the active one is %s",
			ErrNoADBKeyboard, untypableChar(text), quoteOutput(active)),
			"install ADBKeyboard (https://github.com/senzhk/ADBKeyBoard) and call set_ime with "+adbKeyboard+", or leave out that character; nothing was typed")
	}
	return nil
}

// untypableChar describes the first character of text that `input text` cannot type: the
// character quoted and its code point, e.g. 'é' (U+00E9) or '\t' (U+0009).
func untypableChar(text string) string {
	i := untypable(text)
	if i < 0 {
		return "no character"
	}
	r, size := utf8.DecodeRuneInString(text[i:])
	if r == utf8.RuneError && size == 1 {
		return fmt.Sprintf("the byte 0x%02X, which is not UTF-8", text[i])
	}
	return fmt.Sprintf("%q (%U)", r, r)
}

// PressKey presses a named key. Names are those of Android's KeyEvent, with or without
// KEYCODE_, in any case, plus a few aliases (BACKSPACE, RETURN, ESC, RECENTS, UP, DOWN, LEFT,
// RIGHT, VOLUMEUP, ...). A key on one of the phone's buttons (HOME, BACK, POWER, VOLUME_UP, …,
// as its event devices list them) is pressed and released on that device; any other is
// `input keyevent KEYCODE_NAME`.
func (d *Driver) PressKey(ctx context.Context, key string) error {
	const op = "press key"
	code, err := keyCode(key)
	if err != nil {
		return d.fail(ctx, op, err, "use a name of Android's KeyEvent, e.g. HOME, BACK, ENTER, DEL, VOLUME_UP, POWER, APP_SWITCH")
	}
	if k, ok := d.keys[code]; ok {
		done, err := d.onStream(ctx, k.stream, op, func(context.Context) error {
			if err := k.stream.send(inputEvent{evKey, k.code, 1}); err != nil {
				return err
			}
			return k.stream.send(inputEvent{evKey, k.code, 0})
		})
		if done {
			return err
		}
	}
	return d.input(ctx, op, "input keyevent "+code)
}

// SetClipboard puts text on the clipboard through the Clipper app's clipper.set broadcast.
func (d *Driver) SetClipboard(ctx context.Context, text string) error {
	const op = "set clipboard"
	cmd, err := clipboardCommand(text)
	if err != nil {
		return d.fail(ctx, op, err, "")
	}
	out, err := d.shell(ctx, op, cmd)
	if err != nil {
		return err
	}
	result, data, err := parseBroadcast(out)
	if err != nil {
		return d.fail(ctx, op, err, "")
	}
	if result != -1 {
		return d.fail(ctx, op, fmt.Errorf("%w: clipper.set answered result=%d %q", ErrCommandFailed, result, data),
			"install and start the Clipper app (ca.zgrs.clipper), which answers clipper.set")
	}
	return nil
}

// SetIME selects an input method: `ime set IME`.
func (d *Driver) SetIME(ctx context.Context, ime string) error {
	const op = "set ime"
	if !validIME(ime) {
		return d.fail(ctx, op, fmt.Errorf("%w: %q is no input method id", ErrBadArgument, clip(ime, 80)),
			"an id is PACKAGE/CLASS, e.g. "+adbKeyboard+"; `ime list -s` on the device lists them")
	}
	out, err := d.shell(ctx, op, "ime set "+ime)
	if err != nil {
		return err
	}
	if err := parseIME(out); err != nil {
		return d.fail(ctx, op, err, "`ime list -s` on the device lists the installed input methods")
	}
	return nil
}
