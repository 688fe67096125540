package adbsim

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

// newDevice starts a device on a free port, closed when the test ends. Its `input` starts at
// once unless opts say otherwise.
func newDevice(t *testing.T, opts ...Option) *Device {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	d, err := StartDevice(ctx, "127.0.0.1:0", append([]Option{WithInputStartup(0)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = d.Close()
	})
	return d
}

// sh runs a command line through the interpreter, as the shell: service would.
func sh(t *testing.T, d *Device, line string) string {
	t.Helper()
	out, _ := d.run(context.Background(), line)
	return string(out)
}

// wantLog checks that the phone's input log ends with want.
func wantLog(t *testing.T, d *Device, want ...string) {
	t.Helper()
	log := d.Phone().InputLog()
	if len(log) < len(want) || !slices.Equal(log[len(log)-len(want):], want) {
		t.Errorf("phone input log ends %q, want %q", log, want)
	}
}

// waitFor polls cond for up to 5 s.
func waitFor(cond func() bool) error {
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			return errors.New("timed out")
		}
		time.Sleep(5 * time.Millisecond)
	}
	return nil
}
