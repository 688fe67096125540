// Package chromium finds the headless Chromium that Corral drives web pages with: Debian's
// chromium-headless-shell, or its full chromium.
package chromium

import (
	"errors"
	"strings"

	"github.com/corral-farm/corral/internal/which"
)

// Names are the commands tried, in order; CORRAL_CHROMIUM names another.
var Names = []string{"chromium-headless-shell", "chromium", "chromium-browser"}

// ErrNotFound says that no Chromium is installed, and how to install one.
var ErrNotFound = errors.New("no headless Chromium found: install Debian's chromium-headless-shell (apt-get install " +
	"chromium-headless-shell, or chromium; make setup does), or name one in CORRAL_CHROMIUM")

// Find returns the path of the Chromium to run: CORRAL_CHROMIUM if set, else the first of
// Names on PATH.
func Find() (string, error) {
	return which.First("CORRAL_CHROMIUM", Names, ErrNotFound)
}

// DiedAtStart reports whether err is chromedp's account of a browser that exited before it
// answered (Chromium has crashed at start-up on a loaded machine): worth one more try.
// chromedp has two: "chrome failed to start" with the browser's output, or, when its first
// command saw the pipe close before chromedp noticed the exit, "starting the browser: lost
// the connection to the browser".
func DiedAtStart(err error) bool {
	if err == nil {
		return false
	}
	s := err.Error()
	return strings.Contains(s, "chrome failed to start") || strings.Contains(s, "starting the browser: lost the connection to the browser")
}
