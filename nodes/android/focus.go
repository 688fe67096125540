package android

import (
	"context"
	"strings"
)

// keyguardEntries are the lock screen's PIN and password fields: `input text` types a
// passcode into them (unlock_phone) though the dump shows them unfocused.
var keyguardEntries = []string{`resource-id="com.android.systemui:id/pinEntry"`, `resource-id="com.android.systemui:id/passwordEntry"`}

// checkFocus refuses text typed with no field to take it, as iOS and browsers refuse it:
// `input text` answers nothing either way, so "typed 5 characters" on the home screen was a
// lie. It costs one uiautomator dump (about a second on a phone). A field has the focus when a
// node of the dump is focused="true", or the lock screen shows its passcode entry. A dump that
// fails (uiautomator cannot dump while the screen animates) tells nothing: the text is typed.
func (d *Driver) checkFocus(ctx context.Context, op string) error {
	xml, err := d.Source(ctx)
	switch {
	case ctx.Err() != nil:
		return d.fail(ctx, op, ctx.Err(), "")
	case err != nil:
		d.log.Debug("the UI tree could not be read to see a focused field; typing anyway", "serial", d.serial, "err", err)
		return nil
	case strings.Contains(xml, `focused="true"`):
		return nil
	}
	for _, e := range keyguardEntries {
		if strings.Contains(xml, e) {
			return nil
		}
	}
	return &Error{Kind: "android", Serial: d.serial, Op: op, Err: ErrNoFocus,
		Hint: "tap the field first (tap_xy on it; get_source or peek shows where it is), then input; nothing was typed"}
}
