package sim

import (
	"context"
	"fmt"
	"image"
	"strings"
	"time"
	"unicode"

	"github.com/corral-farm/corral/nodes/device"
)

// validKeys are the keys PressKey knows, sorted; "KEYCODE_" prefixes and case are ignored.
var validKeys = [...]string{"BACK", "DEL", "ENTER", "HOME", "POWER", "VOLUME_DOWN", "VOLUME_UP", "WAKEUP"}

// Tap touches pt and does what the element drawn there does. hold is logged but not waited
// for: SetDelay is how a test makes the phone slow.
func (p *Phone) Tap(ctx context.Context, pt device.Point, hold time.Duration) error {
	defer p.track()()
	const op = "tap"
	if err := p.begin(ctx, op); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.log.add(fmt.Sprintf("tap %d %d hold=%s", pt.X, pt.Y, hold))
	if err := p.checkPoint(op, pt); err != nil {
		return err
	}
	if hold < 0 {
		return p.wrap(op, ErrBadInput, fmt.Sprintf("hold is %s; it must be 0 or more", hold))
	}
	p.st.toast = ""
	if hold >= longPress && p.clipboard != "" && p.onNote(pt) {
		p.st.paste = true
		return nil
	}
	p.tap(pt)
	return nil
}

// longPress is how long a touch must hold to be a long press, as Android's default timeout.
const longPress = 500 * time.Millisecond

// onNote says whether pt is on the note's field in Notes. Callers hold p.mu.
func (p *Phone) onNote(pt device.Point) bool {
	e := p.touchRoot().find(image.Pt(pt.X, pt.Y), isClickable)
	return e != nil && e.kind == kField && !p.st.locked && p.st.cur.scr == scrNotes
}

// DoubleTap taps pt twice in quick succession. The element there is activated once: on a
// phone the second tap lands on the page the first one opened, mid-transition, and is dropped.
func (p *Phone) DoubleTap(ctx context.Context, pt device.Point) error {
	defer p.track()()
	const op = "double tap"
	if err := p.begin(ctx, op); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.log.add(fmt.Sprintf("doubletap %d %d", pt.X, pt.Y))
	if err := p.checkPoint(op, pt); err != nil {
		return err
	}
	p.st.toast = ""
	p.st.paste = false
	p.tap(pt)
	return nil
}

// tap does what the element at pt does; any touch closes the Paste menu.
func (p *Phone) tap(pt device.Point) {
	e := p.touchRoot().find(image.Pt(pt.X, pt.Y), isClickable)
	p.st.paste = false
	switch {
	case e == nil:
	case e.act.op == actPaste:
		p.st.typeNote(p.clipboard)
	default:
		p.st.do(e.act, p.passcode)
	}
}

// Swipe moves a finger from one point to another. Starting on a scrolling list scrolls it by
// the vertical distance, clamped to its ends: a finger moving up moves the content up.
func (p *Phone) Swipe(ctx context.Context, from, to device.Point, d, hold time.Duration) error {
	defer p.track()()
	const op = "swipe"
	if err := p.begin(ctx, op); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.log.add(fmt.Sprintf("swipe %d %d %d %d dur=%s hold=%s", from.X, from.Y, to.X, to.Y, d, hold))
	if err := p.checkPoint(op, from); err != nil {
		return err
	}
	if err := p.checkPoint(op, to); err != nil {
		return err
	}
	if d < 0 || hold < 0 {
		return p.wrap(op, ErrBadInput, fmt.Sprintf("duration %s and hold %s must be 0 or more", d, hold))
	}
	p.st.toast = ""
	p.st.paste = false
	list := p.touchRoot().find(image.Pt(from.X, from.Y), isScrollable)
	if list == nil {
		return nil
	}
	scroll := int(p.st.cur.scroll) + from.Y - to.Y
	p.st.cur.scroll = int32(clamp(scroll, 0, list.n))
	return nil
}

// InputText types text into the focused field: the note in Notes, or the PIN on the lock
// screen (digits only). Control characters other than newline and tab are dropped.
func (p *Phone) InputText(ctx context.Context, text string) error {
	defer p.track()()
	const op = "input text"
	if err := p.begin(ctx, op); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.log.add(textLogLine(text))
	p.st.toast = ""
	p.st.paste = false
	text = strings.Map(func(r rune) rune {
		if r == unicode.ReplacementChar || (unicode.IsControl(r) && r != '\n' && r != '\t') {
			return -1
		}
		return r
	}, strings.ToValidUTF8(text, ""))
	switch {
	case p.st.locked:
		if !allDigits(text) {
			return p.wrap(op, ErrBadInput, "the lock screen takes digits only; type the passcode to unlock")
		}
		for i := 0; i < len(text) && p.st.locked; i++ {
			p.st.digit(text[i], p.passcode)
		}
	case p.st.popup != nil:
		return p.wrap(op, ErrNoFocus, "a popup is open and has the focus; close it first (close_popups, or tap one of its buttons)")
	case p.st.cur.scr == scrNotes:
		if !p.st.typeNote(text) {
			return p.wrap(op, ErrBadInput, fmt.Sprintf("the note is full at %d characters; Clear it first", maxNote))
		}
	default:
		return p.wrap(op, ErrNoFocus, "open Notes (com.corral.notes) to type; its note field takes the focus")
	}
	return nil
}

// PressKey presses one of HOME, BACK, ENTER, DEL, VOLUME_UP, VOLUME_DOWN, POWER and WAKEUP.
// POWER locks the phone; on the lock screen ENTER submits the digits and DEL deletes one. BACK
// and HOME close an open popup. WAKEUP does nothing: the simulated screen is always on.
func (p *Phone) PressKey(ctx context.Context, key string) error {
	defer p.track()()
	const op = "press key"
	if err := p.begin(ctx, op); err != nil {
		return err
	}
	name := strings.TrimPrefix(strings.ToUpper(strings.TrimSpace(key)), "KEYCODE_")
	p.mu.Lock()
	defer p.mu.Unlock()
	p.log.add("key " + name)
	st := &p.st
	st.toast = ""
	st.paste = false
	notes := !st.locked && st.popup == nil && st.cur.scr == scrNotes
	switch name {
	case "HOME":
		if !st.locked {
			st.popup = nil
			st.goHome()
		}
	case "BACK":
		switch {
		case st.locked:
		case st.popup != nil:
			st.popup = nil
		default:
			st.goBack()
		}
	case "ENTER":
		switch {
		case st.locked:
			st.submit(p.passcode)
		case notes:
			st.typeNote("\n")
		}
	case "DEL":
		switch {
		case st.locked:
			st.deleteDigit()
		case notes:
			st.deleteNoteRune()
		}
	case "VOLUME_UP":
		st.changeVolume(1)
	case "VOLUME_DOWN":
		st.changeVolume(-1)
	case "POWER":
		st.lock()
	case "WAKEUP":
	default:
		return p.wrap(op, ErrUnknownKey, fmt.Sprintf("%q; valid keys are %s", key, strings.Join(validKeys[:], ", ")))
	}
	return nil
}

func (p *Phone) checkPoint(op string, pt device.Point) error {
	w, h := p.size.Width, p.size.Height
	if pt.X >= 0 && pt.Y >= 0 && pt.X < w && pt.Y < h {
		return nil
	}
	return p.wrap(op, ErrOutOfScreen, fmt.Sprintf("(%d,%d) is outside the %dx%d screen; x must be 0..%d and y 0..%d",
		pt.X, pt.Y, w, h, w-1, h-1))
}
