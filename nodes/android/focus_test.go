package android

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// uiDump is the command with which the driver reads the UI tree.
const uiDump = "uiautomator dump /dev/tty"

// Text typed with no field focused is refused, as on iOS and in browsers, after one dump and
// with nothing typed: `input text` on the home screen answers nothing, and input said "typed 5
// characters". In Notes, whose field the dump shows focused, and on the lock screen, whose PIN
// entry takes the passcode unfocused, it types.
func TestInputTextWithNoFocusedFieldIsRefused(t *testing.T) {
	dev, d := newDevice(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var err error
	got := newCommands(t, dev, func() error { err = d.InputText(ctx, "hello"); return nil })
	if !errors.Is(err, ErrNoFocus) || !errors.Is(err, device.ErrBadInput) {
		t.Fatalf("text on the home screen: %v, want %v (bad input)", err, ErrNoFocus)
	}
	if len(got) != 1 || got[0] != uiDump {
		t.Errorf("text on the home screen ran %q, want the one dump", got)
	}
	if err := d.LaunchApp(ctx, "com.corral.notes"); err != nil {
		t.Fatal(err)
	}
	if err := d.InputText(ctx, "hello"); err != nil {
		t.Fatalf("text into Notes' focused field: %v", err)
	}
	if note := dev.Phone().Note(); note != "hello" {
		t.Errorf("the note holds %q", note)
	}
}
