package web

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/corral-farm/corral/internal/chromium"
)

// startGate holds every Chromium start of the devices started after gateChromium until the
// test opens it: a test that needs a call's deadline to pass while the browser starts gets
// that order for sure, not only when the machine is slower than the deadline.
type startGate struct {
	t          *testing.T
	open, seen string // marker files: the gate is open; a start reached the gate
}

// gateChromium makes CORRAL_CHROMIUM a script that says it was run, waits until the gate is
// open, and then runs the real Chromium in its place (same process, same arguments). It
// skips as startBrowserWith does where no Chromium is installed.
func gateChromium(t *testing.T) *startGate {
	t.Helper()
	chrome, err := chromium.Find()
	if err != nil {
		startBrowserWith(t, Options{}) // skips, or fails under CORRAL_REQUIRE_TOOLS
	}
	dir := t.TempDir()
	g := &startGate{t: t, open: filepath.Join(dir, "open"), seen: filepath.Join(dir, "seen")}
	script := filepath.Join(dir, "gated-chromium")
	body := fmt.Sprintf("#!/bin/sh\n: > %q\nwhile [ ! -e %q ]; do sleep 0.02; done\nexec %q \"$@\"\n", g.seen, g.open, chrome)
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CORRAL_CHROMIUM", script)
	t.Cleanup(g.Open) // a start still held ends with its device all the same
	return g
}

// Reached says whether a start has reached the gate.
func (g *startGate) Reached() bool {
	_, err := os.Stat(g.seen)
	return err == nil
}

// Open lets the starts held, and all after, go on.
func (g *startGate) Open() {
	if err := os.WriteFile(g.open, nil, 0o644); err != nil {
		g.t.Error(err)
	}
}
