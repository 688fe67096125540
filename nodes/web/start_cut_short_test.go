package web

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/corral-farm/corral/internal/chromium"
)

// A Start (not lazy) whose context ends before Chromium is ready closes the device: it says
// the start was cut short, not that the browser is still starting and to call again.
func TestStartCutShortSaysTheDeviceIsClosed(t *testing.T) {
	if _, err := chromium.Find(); err != nil {
		if os.Getenv("CORRAL_REQUIRE_TOOLS") != "" {
			t.Fatalf("%v, and CORRAL_REQUIRE_TOOLS is set", err)
		}
		t.Skip(err)
	}
	t.Setenv("TMPDIR", t.TempDir())
	prof, _ := ProfileNamed("phone")
	ctx, cancel := context.WithCancel(t.Context())
	cancel() // ended before Chromium could start
	d, err := Start(ctx, Options{Serial: "web-cut-short", Profile: prof})
	if err == nil {
		_ = d.Close()
		t.Fatal("Start with an ended context made a device")
	}
	text := err.Error()
	if !errors.Is(err, ErrStartCutShort) || !errors.Is(err, context.Canceled) ||
		!strings.Contains(text, "cut short") || !strings.Contains(text, "device is closed") ||
		strings.Contains(text, "still starting") || strings.Contains(text, "call again") {
		t.Fatalf("Start with an ended context: %v; want the start cut short and the device closed, not still starting", err)
	}
}
