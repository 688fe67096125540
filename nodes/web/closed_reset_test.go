package web

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/corral-farm/corral/internal/logtest"
)

// A browser device removed alone (its --web entry dropped at a restart) has its lease revoked
// as it goes, and the node asks for the wipe after a lease: once the device is closed, that
// reset starts nothing and fails nothing. Close removed the holder's profile.
func TestAClosedDeviceIsNotReset(t *testing.T) {
	tmp := profilesIn(t)
	logs := &logtest.Buffer{}
	d := startBrowserWith(t, Options{Serial: "web-removed", Log: slog.New(slog.NewTextHandler(logs, nil))})
	dir := d.dir
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if err := d.Reset(t.Context()); err != nil {
		t.Errorf("Reset after Close: %v; want nothing done, no error", err)
	}
	if strings.Contains(logs.String(), "reset") {
		t.Errorf("the log speaks of a reset of a closed device: %q", logs.String())
	}
	assertNoProfileLeft(t, tmp, dir)
}
