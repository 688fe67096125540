package android

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// An input method the phone lacks is the caller's mistake (bad_input), not the device's
// failure, and the error says how to list the ones it has.
func TestSetIMEUnknownIsBadInput(t *testing.T) {
	_, d := newDevice(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := d.SetIME(ctx, "com.example/.NoIME")
	if !errors.Is(err, device.ErrBadInput) || !strings.Contains(err.Error(), "ime list -s") {
		t.Fatalf("unknown IME: %v (bad input: %v)", err, errors.Is(err, device.ErrBadInput))
	}
}
