package tools

import (
	"context"
	"fmt"
	"image"
	"strings"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// How long unlocking by sight waits: for the PIN pad after the swipe up (an iPhone tries Face
// ID first, about a second), and for the lock screen to go after the last digit.
const (
	padAppears  = 4 * time.Second
	sightSettle = 4 * time.Second
)

// What lock screens say, lower case: on the lock screen itself, and after a wrong passcode.
var (
	lockScreenWords = []string{"passcode", "enter pin", "swipe up", "unlock", "face id", "touch id", "emergency"}
	wrongWords      = []string{"wrong", "incorrect", "try again"}
	enterKeyLabels  = []string{"ok", "enter", "done"}
)

// sightLook is what one look at the screen found.
type sightLook struct {
	pad             keypad
	hasPad          bool
	lockText, wrong bool
	enter           image.Point // the pad's OK key, if it has one
	hasEnter        bool
	elements        int
}

// look asks the vision worker what the screen shows.
func look(ctx context.Context, t *Task) (sightLook, error) {
	img, err := t.Driver.Screenshot(ctx)
	if err != nil {
		return sightLook{}, err
	}
	els, _, err := visionElements(ctx, t, img)
	if err != nil {
		return sightLook{}, err
	}
	l := sightLook{elements: len(els)}
	l.pad, l.hasPad = findKeypad(els, img.Bounds().Size())
	for _, e := range els {
		label := strings.ToLower(strings.TrimSpace(e.Label))
		l.lockText = l.lockText || containsAny(label, lockScreenWords)
		l.wrong = l.wrong || containsAny(label, wrongWords)
		if l.hasPad && e.Kind == "text" && containsAny(label, enterKeyLabels) && len(label) <= 5 {
			l.enter, l.hasEnter = image.Pt((e.px.Min.X+e.px.Max.X)/2, (e.px.Min.Y+e.px.Max.Y)/2), true
		}
	}
	return l, nil
}

func containsAny(s string, parts []string) bool {
	for _, p := range parts {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

// unlockBySight unlocks a device that cannot type, only touch (an arm's finger on the glass),
// as PhysiClaw does: it looks with the vision worker; on a lock screen without its PIN pad it
// swipes up and waits for the pad (Face ID fails first on an iPhone); it taps the passcode's
// digits on the pad it found, then OK where the pad has one and the phone did not go on by
// itself; and it looks until the pad is gone. Where the screen shows neither a pad nor a lock
// screen, nothing is touched. Tap errors leave out where the finger went: the keys tapped
// would tell the passcode.
func unlockBySight(ctx context.Context, t *Task, code Secret) (Output, error) {
	digits := code.Reveal()
	if strings.Trim(digits, "0123456789") != "" {
		return Output{}, fmt.Errorf("the passcode for %s is not all digits: this device unlocks by tapping a PIN pad",
			t.Driver.Info().Serial)
	}
	l, err := look(ctx, t)
	if err != nil {
		return Output{}, fmt.Errorf("looking for the lock screen: %w", err)
	}
	if !l.hasPad {
		if !l.lockText {
			return Output{Data: UnlockResult{Message: fmt.Sprintf("no lock screen in view (%d elements seen, no PIN pad, no lock screen text): "+
				"nothing was touched; peek to check", l.elements), Unlocked: true, Hint: hintUnlock}}, nil
		}
		if l, err = swipeToPad(ctx, t); err != nil {
			return Output{}, err
		}
	}
	tap := t.Driver
	for i := range len(digits) {
		p := l.pad.digit(int(digits[i] - '0'))
		if err := tap.Tap(ctx, device.Point{X: p.X, Y: p.Y}, 0); err != nil {
			return Output{}, fmt.Errorf("tapping key %d of %d on the PIN pad: %w", i+1, len(digits), redactErr(err, code))
		}
	}
	pressedEnter := false
	deadline := time.Now().Add(sightSettle)
	for {
		after, err := look(ctx, t)
		switch {
		case err != nil:
			return Output{}, fmt.Errorf("looking whether the phone unlocked: %w", err)
		case !after.hasPad && !after.lockText:
			return Output{Data: UnlockResult{Message: "unlocked: the PIN pad and the lock screen are gone (seen by the vision worker)",
				Unlocked: true, Verified: true, PasscodeEntered: true, Hint: hintUnlock}}, nil
		case after.wrong || time.Now().After(deadline):
			return Output{}, fmt.Errorf("still locked: wrong passcode? Do not retry (wrong passcodes lock the phone out for a while): "+
				"check the entry for %s in the node's --passcodes file, or peek at the lock screen", t.Driver.Info().Serial)
		case after.hasPad && after.hasEnter && !pressedEnter:
			pressedEnter = true
			if err := tap.Tap(ctx, device.Point{X: after.enter.X, Y: after.enter.Y}, 0); err != nil {
				return Output{}, fmt.Errorf("tapping the PIN pad's OK: %w", err)
			}
		}
	}
}

// swipeToPad swipes up from the bottom of a lock screen and looks until the PIN pad shows.
func swipeToPad(ctx context.Context, t *Task) (sightLook, error) {
	sw, ok := t.Driver.(device.Swiper)
	if !ok {
		return sightLook{}, fmt.Errorf("the lock screen shows without its PIN pad, and this device cannot swipe up to it")
	}
	s, err := t.Driver.ScreenSize(ctx)
	if err != nil {
		return sightLook{}, err
	}
	// From a hundredth above the bottom edge: a finger sent to the very edge may miss the glass.
	from, to := device.Point{X: s.Width / 2, Y: s.Height - s.Height/100}, device.Point{X: s.Width / 2, Y: scale(0.3, s.Height)}
	if err := sw.Swipe(ctx, from, to, 300*time.Millisecond, 0); err != nil {
		return sightLook{}, err
	}
	deadline := time.Now().Add(padAppears)
	for {
		l, err := look(ctx, t)
		if err != nil || l.hasPad {
			return l, err
		}
		if time.Now().After(deadline) {
			return sightLook{}, fmt.Errorf("the lock screen shows, but no PIN pad came up after a swipe up: " +
				"peek; the vision worker must see the pad's keys (at least a few of their digits)")
		}
	}
}
