// Package firefox drives a headless Firefox over WebDriver BiDi, its native remote protocol
// (Firefox has no CDP any more), so that tests can check pages in a second engine: Debian's
// firefox-esr, or a firefox on PATH.
package firefox

import (
	"errors"

	"github.com/corral-farm/corral/internal/which"
)

// Names are the commands tried, in order; CORRAL_FIREFOX names another.
var Names = []string{"firefox-esr", "firefox"}

// ErrNotFound says that no Firefox is installed, and how to install one.
var ErrNotFound = errors.New("no Firefox found: install Debian's firefox-esr (apt-get install firefox-esr; " +
	"make setup does), or name one in CORRAL_FIREFOX")

// Find returns the path of the Firefox to run: CORRAL_FIREFOX if set, else the first of Names
// on PATH.
func Find() (string, error) {
	return which.First("CORRAL_FIREFOX", Names, ErrNotFound)
}
