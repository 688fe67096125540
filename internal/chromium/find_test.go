package chromium

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// Both of chromedp's accounts of a browser that died while starting are told; other start
// errors (the caller's deadline) are not.
func TestDiedAtStart(t *testing.T) {
	lost := fmt.Errorf("lost the connection to the browser: %w: %w", errors.New("EOF"), context.Canceled)
	for err, want := range map[error]bool{
		errors.New("chrome failed to start:\nSegmentation fault"):        true,
		fmt.Errorf("starting the browser: %w", lost):                     true,
		fmt.Errorf("starting the browser: %w", context.DeadlineExceeded): false,
		lost: false, // a browser that died later, in use
		nil:  false,
	} {
		if got := DiedAtStart(err); got != want {
			t.Errorf("DiedAtStart(%v) = %v, want %v", err, got, want)
		}
	}
}
