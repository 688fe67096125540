package web

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/android"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/tools"
)

// checkedHealth counts the health checks of a device's driver that have answered.
type checkedHealth struct {
	*Driver
	checks atomic.Int32
}

func (c *checkedHealth) Health(ctx context.Context) error {
	err := c.Driver.Health(ctx)
	c.checks.Add(1)
	return err
}

// A node with browser devices beyond its floor (--web-max) starts none of their browsers: the
// device's start-up health check finds the elastic device healthy without starting it (it
// started every one, QA's repro of `corral up --sim-web 1 --web-max 4`). Its first use does.
func TestNodeStartsNoElasticBrowser(t *testing.T) {
	d := startBrowserWith(t, Options{Serial: "web-spare", Lazy: true, Idle: time.Hour})
	dev := &checkedHealth{Driver: d}
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Platforms: []device.Platform{android.Platform(), Platform()}})
	f.AddDriver("n1", dev)
	farmtest.Eventually(t, 30*time.Second, func() bool {
		e, ok := f.Gateway().Client.Device("web-spare")
		return ok && e.State == broker.StateOnline && dev.checks.Load() > 0
	}, "web-spare online after a health check")
	if d.Running() {
		t.Fatal("the node's health check started the elastic device's browser; nobody used it")
	}
	res := farmtest.MustCall(t, f.Client("user"), "get_foreground_app", map[string]any{"serial": "web-spare"})
	if text := farmtest.Text(res); res.IsError || !d.Running() {
		t.Fatalf("the device's first call: %q; running %v, want its browser started", text, d.Running())
	}
}

// A look at an elastic device (the console's live screen, through tools.ScreenJPEG) neither
// starts its stopped browser, which it says, nor keeps a running one from stopping when idle;
// the screenshot tool is a use, and starts it.
func TestLookIsNoUse(t *testing.T) {
	d := startBrowserWith(t, Options{Serial: "web-looked", Lazy: true, Idle: time.Hour})
	ctx := context.Background()
	if _, _, err := tools.ScreenJPEG(ctx, d, 360); !errors.Is(err, ErrStopped) || d.Running() {
		t.Fatalf("a look at the stopped browser: %v, running %v; want ErrStopped and none started", err, d.Running())
	}
	if err := d.Health(ctx); err != nil || d.Running() {
		t.Fatalf("the health of the stopped browser: %v, running %v; want healthy, none started", err, d.Running())
	}
	if _, _, err := d.ScreenshotJPEG(ctx); err != nil || !d.Running() {
		t.Fatalf("a screenshot call: %v, running %v; want the browser started", err, d.Running())
	}
	d.mu.Lock()
	used := d.lastUse
	d.mu.Unlock()
	for range 3 {
		if _, _, err := tools.ScreenJPEG(ctx, d, 360); err != nil {
			t.Fatalf("a look at the running browser: %v", err)
		}
		if err := d.Health(ctx); err != nil {
			t.Fatal(err)
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.lastUse.Equal(used) {
		t.Errorf("looks moved the browser's last use from %s to %s: a watched browser would never stop for idleness", used, d.lastUse)
	}
}
