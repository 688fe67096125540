package nodes

import (
	"context"
	"strings"
	"testing"
	"time"
)

// Review R: a wipe whose driver never returns left the device online (Health said nothing while
// a wipe ran) with every task timing out behind it, for good. Past its bound it is unhealthy.
func TestWipeThatDoesNotReturnMakesTheDeviceUnhealthy(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	w := &wiper{hungAfter: 2 * time.Second, reset: func(context.Context) error {
		<-release // a driver that ignores its context
		return nil
	}}
	b := &boundDevice{wipes: w}
	w.leaseEnded()
	if err := b.Health(context.Background()); err != nil {
		t.Fatalf("health while the wipe has just begun: %v; want none (the wipe has its own bound)", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := b.Health(context.Background())
		if err != nil {
			if !strings.Contains(err.Error(), "has not returned") || !strings.Contains(err.Error(), "the driver hangs") {
				t.Fatalf("health of a hung wipe says %q; want that it has not returned and the driver hangs", err)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("a wipe that never returned kept the device healthy for 10 s (its bound: 2 s)")
		}
		time.Sleep(10 * time.Millisecond) // polling a condition
	}
}
