package tools

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/redact"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/uitree"
)

// How long unlock_phone waits for the lock screen to go after confirming the passcode (the
// keyguard animates away), and how often it looks meanwhile.
const (
	unlockSettle = 2 * time.Second
	unlockPoll   = 200 * time.Millisecond
)

// systemUI is the package of Android's lock screen (and status bar, shade, ...).
const systemUI = "com.android.systemui"

// UnlockResult is unlock_phone's structured result.
type UnlockResult struct {
	Message         string `json:"message" jsonschema:"What was done"`
	Unlocked        bool   `json:"unlocked" jsonschema:"The lock screen is gone"`
	Verified        bool   `json:"verified" jsonschema:"The device told its lock state; false: peek to check"`
	PasscodeEntered bool   `json:"passcodeEntered" jsonschema:"False when it was not locked"`
	Hint            string `json:"hint"`
}

// passcodeTeller is a driver that knows its own passcode: a simulated phone.
type passcodeTeller interface{ Passcode() string }

// unlockPhone wakes the screen and, if the lock screen shows, swipes up, types the passcode
// and presses ENTER, as PhysiClaw's unlock_phone does by hand. The passcode is the node's
// (passcodes: the device's own entry, else a driver that knows it, else the "*" entry): it never
// travels in a task's arguments, and no result, error or record repeats it.
//
// unlock_phone takes no passcode: the node knows it (--passcodes), so it never travels in a
// call, a task or a record. Not idempotent: a retry after a wrong passcode counts towards the
// lockout.
func unlockPhone() Tool {
	const tellsLock = "tell whether the lock screen shows"
	return Define[ActionArgs, UnlockResult](Tool{
		Name:        "unlock_phone",
		Description: "Wake and unlock the phone with the passcode its node is configured with. If it fails, do not retry: wrong passcodes lock the phone out.",
		Timeout:     30 * time.Second,
		MaxTimeout:  2 * time.Minute,
		Profiles:    []string{PhysiClaw},
		Short:       noParams,
		Needs:       []Ability{Need[device.KeyPresser]("wake the screen to unlock it")},
		// Typing the passcode is best; a device that cannot type, only touch (an arm), taps it
		// on the PIN pad that the vision worker finds (unlockBySight). A swipe up brings up the
		// PIN pad; the status, the UI tree or the app in front tell whether the lock screen
		// shows (lockState).
		Uses: []Ability{Need[device.TextInputter]("type the passcode (else it is tapped on the PIN pad, found by vision)"),
			Need[device.Swiper]("swipe up to the PIN pad"), Need[device.StatusReporter](tellsLock),
			Need[device.SourceDumper](tellsLock), Need[device.ForegroundReporter](tellsLock)},
	}, func(ctx context.Context, t *Task, _ ActionArgs) (Output, error) {
		keys := t.Driver.(device.KeyPresser)
		wakeErr := wake(ctx, keys)
		if wakeErr != nil && ctx.Err() != nil {
			return Output{}, wakeErr
		}
		locked, known, err := lockState(ctx, t.Driver)
		if err != nil {
			return Output{}, err
		}
		switch {
		case wakeErr != nil && known && !locked: // a browser: no wake key, no lock screen
			msg := "nothing to unlock: the device has no wake key (WAKEUP and MENU refused) and shows no lock screen; no passcode entered"
			if t.Driver.Info().Platform == device.PlatformWeb {
				msg = "a browser has no lock screen: nothing to unlock; no passcode entered"
			}
			return Output{Data: UnlockResult{Message: msg,
				Unlocked: true, Verified: true, Hint: hintUnlock}}, nil
		case wakeErr != nil:
			return Output{}, wakeErr
		case known && !locked:
			return Output{Data: UnlockResult{Message: "the phone was not locked: screen woken, no passcode entered",
				Unlocked: true, Verified: true, Hint: hintUnlock}}, nil
		}
		serial := t.Driver.Info().Serial
		code, ok := passcodeFor(t.env().Config.Passcodes, t.Driver)
		if !ok {
			configure := fmt.Sprintf("start the node with --passcodes FILE (or CORRAL_PASSCODES=FILE), a YAML file with the line "+
				"`%s: \"PASSCODE\"` (or `\"*\": \"PASSCODE\"` for every device)", serial)
			if !known { // an arm: it may well be unlocked, and nothing here can tell
				return Output{Data: UnlockResult{Message: "screen woken; this device cannot tell whether its lock screen shows, and this node has " +
					"no passcode for it, so none was entered: peek to check; if the lock screen shows, " + configure, Hint: hintUnlock}}, nil
			}
			// The node lacks configuration, not the device: unconfigured, as the AI tools
			// without a model, but for this device only (passcodes go by serial), so the gateway
			// offers the node's other devices too. The screen was woken, which changes nothing a
			// caller relies on.
			return Output{}, &OpError{Code: broker.CodeUnconfigured, Msg: "the phone is locked (screen woken, nothing entered)",
				Err: fmt.Errorf("%w: no passcode for it: %s", device.ErrNotConfigured, configure)}
		}
		typer, types := t.Driver.(device.TextInputter)
		if !types {
			return unlockBySight(ctx, t, code)
		}
		if _, ok := t.Driver.(device.Swiper); ok { // brings up the PIN pad; harmless where it shows already
			s, err := t.Driver.ScreenSize(ctx)
			if err != nil {
				return Output{}, err
			}
			from, to := device.Point{X: s.Width / 2, Y: scale(0.8, s.Height)}, device.Point{X: s.Width / 2, Y: scale(0.3, s.Height)}
			if err := t.swipeFrom(ctx, from, to, 300*time.Millisecond, 0); err != nil { // the PIN's own touches are never marked
				return Output{}, err
			}
		}
		if err := typer.InputText(ctx, code.Reveal()); err != nil {
			return Output{}, redactErr(fmt.Errorf("typing the passcode: %w", err), code)
		}
		// A PIN pad that takes the last digit as the whole code unlocks at once (an iPhone's):
		// ENTER then finds no keyboard up (bad_input), and the lock check below tells.
		if err := keys.PressKey(ctx, "ENTER"); err != nil && !errors.Is(err, device.ErrBadInput) {
			return Output{}, err
		}
		locked, known, err = settleLock(ctx, t.Driver)
		switch {
		case err != nil:
			return Output{}, err
		case !known:
			return Output{Data: UnlockResult{Message: "passcode entered and confirmed; this device cannot tell whether the lock screen is gone: peek to check",
				PasscodeEntered: true, Hint: hintUnlock}}, nil
		case locked:
			return Output{}, fmt.Errorf("still locked: wrong passcode? Do not retry (wrong passcodes lock the phone out for a while): "+
				"check the entry for %s in the node's --passcodes file, or peek at the lock screen", serial)
		}
		return Output{Data: UnlockResult{Message: "unlocked: the lock screen is gone", Unlocked: true, Verified: true,
			PasscodeEntered: true, Hint: hintUnlock}}, nil
	})
}

// wake turns the screen on: WAKEUP, or MENU on devices too old to know WAKEUP. A device that
// makes keys as gestures and has none for MENU (an arm: QA saw "WAKEUP: …; MENU: …" from a
// halted rig) is not asked for it: WAKEUP's failure is the one reason, with its hint.
func wake(ctx context.Context, k device.KeyPresser) error {
	err := k.PressKey(ctx, "WAKEUP")
	if err == nil || ctx.Err() != nil {
		return err
	}
	if g, ok := k.(keyGesturer); ok && g.KeyGesture("MENU") == "" {
		return fmt.Errorf("waking the screen: %w", err)
	}
	if err2 := k.PressKey(ctx, "MENU"); err2 != nil {
		return fmt.Errorf("waking the screen: WAKEUP: %w; MENU: %w", err, err2)
	}
	return nil
}

// passcodeFor picks the passcode of d: its own entry, else the one d knows, else "*".
func passcodeFor(p Passcodes, d device.Driver) (Secret, bool) {
	serial := d.Info().Serial
	if s, ok := p.own(serial); ok {
		return s, true
	}
	if pt, ok := d.(passcodeTeller); ok && pt.Passcode() != "" {
		return Secret{s: pt.Passcode()}, true
	}
	return p.Lookup(serial)
}

// settleLock waits up to unlockSettle for the lock screen to go, and returns the last state.
func settleLock(ctx context.Context, d device.Driver) (locked, known bool, err error) {
	deadline := time.Now().Add(unlockSettle)
	for {
		locked, known, err = lockState(ctx, d)
		if err != nil || !known || !locked || time.Now().After(deadline) {
			return locked, known, err
		}
		select {
		case <-ctx.Done():
			return false, false, ctx.Err()
		case <-time.After(unlockPoll):
		}
	}
}

// lockState asks the device whether its lock screen shows: its status ("locked", simulated
// phones), else its UI tree (the keyguard's views), else the app in front (the system UI).
// known is false when none of them can tell; err is only ctx's.
func lockState(ctx context.Context, d device.Driver) (locked, known bool, err error) {
	if s, ok := d.(device.StatusReporter); ok {
		if st, err := s.Status(ctx); err == nil {
			if v, err := strconv.ParseBool(st["locked"]); err == nil {
				return v, true, nil
			}
		}
	}
	if s, ok := d.(device.SourceDumper); ok {
		if src, err := s.Source(ctx); err == nil { // uiautomator fails while the screen is off
			if els, err := uitree.Parse(src); err == nil {
				return showsLockScreen(els), true, nil
			}
		}
	}
	if f, ok := d.(device.ForegroundReporter); ok {
		if pkg, err := f.ForegroundApp(ctx); err == nil && pkg != "" {
			return pkg == systemUI, true, nil
		}
	}
	return false, false, ctx.Err()
}

// lockScreenIDs are parts of the resource ids of Android's keyguard views (AOSP and the big
// vendors keep them).
var lockScreenIDs = []string{"keyguard", "pinentry", "passwordentry", "lockpattern", "bouncer", "lock_icon"}

// showsLockScreen says whether a UI tree is the lock screen: system UI views with keyguard ids.
func showsLockScreen(els []uitree.Element) bool {
	for _, e := range els {
		if e.Package != systemUI && !strings.HasPrefix(e.ResourceID, systemUI+":") {
			continue
		}
		id := strings.ToLower(e.ResourceID)
		for _, part := range lockScreenIDs {
			if strings.Contains(id, part) {
				return true
			}
		}
	}
	return false
}

// redactErr returns err's message with the passcode taken out (by the rule of task records:
// internal/redact), in case a driver quoted what it was asked to type.
func redactErr(err error, s Secret) error {
	msg := err.Error()
	if hidden := redact.NewSecrets(redacted, []string{s.s}).Hide(msg); hidden != msg {
		return errors.New(hidden)
	}
	return err
}
