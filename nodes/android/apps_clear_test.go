package android

import (
	"testing"
)

// app_clear clears the app's data on the simulated phone behind the real adb server, as on the
// in-process sim phone: Notes forgets its note.
func TestClearAppClearsTheNote(t *testing.T) {
	dev, d := newDevice(t)
	ctx := t.Context()
	const notes = "com.corral.notes"
	if err := d.LaunchApp(ctx, notes); err != nil {
		t.Fatal(err)
	}
	if err := d.InputText(ctx, "abc"); err != nil {
		t.Fatal(err)
	}
	if got := dev.Phone().Note(); got != "abc" {
		t.Fatalf("note %q after typing abc, want abc", got)
	}
	if err := d.ClearApp(ctx, notes); err != nil {
		t.Fatal(err)
	}
	if err := d.LaunchApp(ctx, notes); err != nil {
		t.Fatal(err)
	}
	if got := dev.Phone().Note(); got != "" {
		t.Errorf("note %q after app_clear, want it empty", got)
	}
	if fg, err := d.ForegroundApp(ctx); err != nil || fg != notes {
		t.Errorf("foreground app %q, %v after the launch, want %s", fg, err, notes)
	}
	// A helper app has no state on the phone: clearing it still succeeds.
	if err := d.ClearApp(ctx, "ca.zgrs.clipper"); err != nil {
		t.Errorf("clear a helper app: %v", err)
	}
}
