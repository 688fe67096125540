package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
)

// lockable is a fake phone with a lock: typing its passcode and ENTER unlock it; Status tells
// the lock unless hideStatus, and the UI tree shows the keyguard's views while locked.
type lockable struct {
	*fakeAbled
	mu         sync.Mutex
	locked     bool
	code       string
	typed      string
	keys       []string
	hideStatus bool
}

func newLockable(code string) *lockable {
	l := &lockable{fakeAbled: newAbled(), locked: true, code: code}
	l.PressKeyFn = func(_ context.Context, key string) error {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.keys = append(l.keys, key)
		if key == "ENTER" && l.typed == l.code {
			l.locked = false
		}
		return nil
	}
	l.InputTextFn = func(_ context.Context, text string) error {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.typed += text
		return nil
	}
	l.StatusFn = func(context.Context) (map[string]string, error) {
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.hideStatus {
			return map[string]string{"battery_level": "9"}, nil
		}
		return map[string]string{"locked": fmt.Sprint(l.locked)}, nil
	}
	l.SourceFn = func(context.Context) (string, error) {
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.locked {
			return `<hierarchy><node package="com.android.systemui" bounds="[0,0][1080,2400]">` +
				`<node resource-id="com.android.systemui:id/keyguard_bouncer_frame" bounds="[0,0][1080,2400]"/></node></hierarchy>`, nil
		}
		return `<hierarchy><node package="com.example.launcher" bounds="[0,0][1080,2400]"/></hierarchy>`, nil
	}
	return l
}

func unlockWith(t *testing.T, p Passcodes, d device.Driver) (map[string]any, error) {
	t.Helper()
	out, err := DefaultOpsWith(OpsConfig{Passcodes: p})["unlock_phone"].Run(context.Background(), &Task{Driver: d, Args: json.RawMessage(`{}`)})
	if err != nil {
		return nil, err
	}
	b, _ := json.Marshal(out.Data)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m, nil
}

// The lock screen goes the PhysiClaw way: wake, swipe up, type, ENTER; then it is checked.
func TestUnlockPhoneEntersTheConfiguredPasscode(t *testing.T) {
	for _, c := range []struct {
		name string
		conf string
	}{{"own entry", `fake-1: "482916"`}, {"default entry", `"*": "482916"`}} {
		t.Run(c.name, func(t *testing.T) {
			d := newLockable("482916")
			m, err := unlockWith(t, mustParse(t, c.conf), d)
			if err != nil {
				t.Fatal(err)
			}
			if m["unlocked"] != true || m["verified"] != true || m["passcodeEntered"] != true || !strings.Contains(m["hint"].(string), "home screen") {
				t.Fatalf("result %v", m)
			}
			if strings.Contains(fmt.Sprint(m), "482916") {
				t.Fatalf("the passcode is in the result: %v", m)
			}
			calls := strings.Join(d.Calls(), " ")
			if !strings.HasPrefix(calls, "PressKey Status ScreenSize Swipe InputText PressKey Status") {
				t.Fatalf("driver calls %s", calls)
			}
			if d.keys[0] != "WAKEUP" || d.keys[1] != "ENTER" || d.typed != "482916" {
				t.Fatalf("keys %v typed %q", d.keys, d.typed)
			}
		})
	}
}

// A phone that is not locked is only woken: no passcode needed, none typed.
func TestUnlockPhoneNotLocked(t *testing.T) {
	d := newLockable("1")
	d.locked = false
	m, err := unlockWith(t, Passcodes{}, d)
	if err != nil || m["unlocked"] != true || m["passcodeEntered"] != false || d.typed != "" {
		t.Fatalf("%v %v typed %q", m, err, d.typed)
	}
}

func TestUnlockPhoneFailsClearly(t *testing.T) {
	// No passcode for a locked phone: say how to configure one.
	_, err := unlockWith(t, mustParse(t, `other-serial: "1"`), newLockable("1"))
	if err == nil || !strings.Contains(err.Error(), "--passcodes") || !strings.Contains(err.Error(), `fake-1: "PASSCODE"`) {
		t.Fatalf("no passcode: %v", err)
	}
	wantCode(t, err, broker.CodeUnconfigured) // the node lacks it, not the device
	// A wrong one: still locked, do not retry; the passcode is not in the error.
	_, err = unlockWith(t, mustParse(t, `"*": "7777"`), newLockable("1"))
	if err == nil || !strings.Contains(err.Error(), "still locked: wrong passcode?") || strings.Contains(err.Error(), "7777") {
		t.Fatalf("wrong passcode: %v", err)
	}
	// A driver that quotes what it typed has the passcode blanked out.
	d := newLockable("1")
	d.InputTextFn = func(_ context.Context, text string) error { return fmt.Errorf("input text %q refused", text) }
	_, err = unlockWith(t, mustParse(t, `"*": "55501"`), d)
	if err == nil || strings.Contains(err.Error(), "55501") || !strings.Contains(err.Error(), "[redacted]") {
		t.Fatalf("driver error: %v", err)
	}
	// A driver without keys or text input cannot unlock, and says so.
	_, err = unlockWith(t, Passcodes{}, newFake())
	wantCode(t, err, broker.CodeUnsupported)
}

// Without a "locked" status, the UI tree tells (the keyguard's views); with neither, the result
// says it could not check.
func TestUnlockPhoneReadsTheLockScreen(t *testing.T) {
	d := newLockable("24")
	d.hideStatus = true
	m, err := unlockWith(t, mustParse(t, `"*": "24"`), d)
	if err != nil || m["unlocked"] != true || m["verified"] != true {
		t.Fatalf("%v %v", m, err)
	}
	blind := &keysAndText{fakeDriver: newFake()}
	m, err = unlockWith(t, mustParse(t, `"*": "24"`), blind)
	if err != nil || m["unlocked"] != false || m["verified"] != false || !strings.Contains(m["message"].(string), "peek") {
		t.Fatalf("%v %v", m, err)
	}
	if blind.text != "24" || strings.Join(blind.keys, " ") != "WAKEUP ENTER" {
		t.Fatalf("typed %q keys %v", blind.text, blind.keys)
	}
}

// Devices too old for WAKEUP are woken with MENU.
func TestUnlockPhoneWakesWithMenuWhenWakeupFails(t *testing.T) {
	blind := &keysAndText{fakeDriver: newFake(), refuse: "WAKEUP"}
	if _, err := unlockWith(t, mustParse(t, `"*": "24"`), blind); err != nil {
		t.Fatal(err)
	}
	if strings.Join(blind.keys, " ") != "WAKEUP MENU ENTER" {
		t.Fatalf("keys %v", blind.keys)
	}
}

// keysAndText presses keys and types, and can tell nothing about its state.
type keysAndText struct {
	*fakeDriver
	keys   []string
	text   string
	refuse string // keys refused, space-separated
}

func (k *keysAndText) PressKey(_ context.Context, key string) error {
	k.keys = append(k.keys, key)
	if slices.Contains(strings.Fields(k.refuse), key) {
		return errors.New("unknown key")
	}
	return nil
}

func (k *keysAndText) InputText(_ context.Context, text string) error {
	k.text += text
	return nil
}

// keysOnly presses keys and can neither type nor tell anything about its state: an arm rig.
type keysOnly struct {
	*fakeDriver
	keys []string
}

func (k *keysOnly) PressKey(_ context.Context, key string) error {
	k.keys = append(k.keys, key)
	return nil
}

// A device that cannot tell whether it is locked, with no passcode on its node, is not said to
// be locked: the screen is woken, nothing is entered, and the result says to peek (and how to
// configure a passcode should the lock screen show).
func TestUnlockPhoneCannotTellWithoutPasscode(t *testing.T) {
	arm := &keysOnly{fakeDriver: newFake()}
	m, err := unlockWith(t, Passcodes{}, arm)
	if err != nil {
		t.Fatalf("an arm that cannot tell its lock state was said to be locked: %v", err)
	}
	msg, _ := m["message"].(string)
	if m["unlocked"] != false || m["verified"] != false || m["passcodeEntered"] != false ||
		!strings.Contains(msg, "cannot tell") || !strings.Contains(msg, "peek") || !strings.Contains(msg, "--passcodes") {
		t.Fatalf("result %v", m)
	}
	if strings.Join(arm.keys, " ") != "WAKEUP" {
		t.Fatalf("keys %v", arm.keys)
	}
	if calls := strings.Join(arm.Calls(), " "); strings.Contains(calls, "Tap") {
		t.Fatalf("the screen was touched: %s", calls)
	}
}

// A device without a wake key (a browser) that tells it shows no lock screen has nothing to
// unlock: no driver error. One that cannot tell keeps the wake error.
func TestUnlockPhoneWithoutAWakeKey(t *testing.T) {
	browser := newLockable("1")
	browser.locked = false
	browser.PressKeyFn = func(_ context.Context, key string) error { return fmt.Errorf("no such key: %q", key) }
	m, err := unlockWith(t, Passcodes{}, browser)
	if err != nil {
		t.Fatalf("a device with no wake key and no lock screen: %v", err)
	}
	if m["unlocked"] != true || m["verified"] != true || m["passcodeEntered"] != false || !strings.Contains(m["message"].(string), "nothing to unlock") {
		t.Fatalf("result %v", m)
	}
	_, err = unlockWith(t, Passcodes{}, &keysAndText{fakeDriver: newFake(), refuse: "WAKEUP MENU"})
	if err == nil || !strings.Contains(err.Error(), "waking the screen") {
		t.Fatalf("no wake key, no lock state: %v", err)
	}
}
