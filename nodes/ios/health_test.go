package ios

import (
	"context"
	"errors"
	"image"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/ios/iossim"
	"github.com/corral-farm/corral/nodes/ios/wdasim"
	"github.com/corral-farm/corral/nodes/sim"
)

// plugIn attaches one more simulated iPhone, made as cfg says, with a WebDriverAgent.
func plugIn(t *testing.T, sims *Sims, cfg iossim.Config) (*iossim.Device, *wdasim.Server) {
	t.Helper()
	dev, err := iossim.NewDevice(cfg)
	if err != nil {
		t.Fatal(err)
	}
	w := wdasim.New(sim.New(cfg.UDID, sim.WithSize(750, 1334)), SimScale)
	dev.Handle(DefaultWDAPort, w)
	sims.Host.Attach(dev)
	return dev, w
}

// An iPhone that does not trust this computer shows unhealthy with what a person must do, and
// is taken as soon as they tap Trust.
func TestUntrustedDeviceWaitsForTrust(t *testing.T) {
	sims, reg := simFarm(t, 0)
	dev, _ := plugIn(t, sims, iossim.Config{UDID: "ios-untrusted", Name: "Locked Box", Untrusted: true})
	eventually(t, 10*time.Second, func() bool {
		err, ok := reg.healthOf("ios-untrusted")
		return ok && errors.Is(err, ErrUntrusted) && strings.Contains(err.Error(), "tap Trust")
	}, "the untrusted iPhone listed, unhealthy, saying to tap Trust")
	if d := reg.driver("ios-untrusted"); d.Info().Release != "16.7.2" || d.Info().Extra["name"] != "Locked Box" {
		t.Errorf("an untrusted device still tells lockdown's public values: %+v", d.Info())
	}
	dev.Trust()
	ready(t, reg, "ios-untrusted")
}

// Without a launcher (the farm runs WebDriverAgent itself) a dead WDA shows the device
// unhealthy, saying so, until WDA answers again.
func TestDeadWDAWithoutLauncher(t *testing.T) {
	sims, reg := simFarmLaunching(t, 0, false)
	dev, w := plugIn(t, sims, iossim.Config{UDID: "ios-own-wda"})
	ready(t, reg, "ios-own-wda")
	dev.Unhandle(DefaultWDAPort)
	eventually(t, 10*time.Second, func() bool {
		err, _ := reg.healthOf("ios-own-wda")
		return err != nil && strings.Contains(err.Error(), "does not answer") && strings.Contains(err.Error(), "the farm starts WebDriverAgent itself")
	}, "unhealthy, waiting for the farm's WebDriverAgent")
	dev.Handle(DefaultWDAPort, w)
	ready(t, reg, "ios-own-wda")
}

// A locked phone's screenshot is black: the driver wakes it and shows the screen.
func TestScreenshotWakesALockedPhone(t *testing.T) {
	sims, reg := simFarm(t, 1)
	d := ready(t, reg, "ios-sim-01")
	ctx := t.Context()
	if err := d.PressKey(ctx, "POWER"); err != nil {
		t.Fatal(err)
	}
	if locked, err := d.wda.Locked(ctx); err != nil || !locked {
		t.Fatalf("POWER did not lock the phone: %v %v", locked, err)
	}
	img, err := d.Screenshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if dark(img) {
		t.Error("the screenshot of a locked phone is still dark")
	}
	if locked, _ := d.wda.Locked(ctx); locked {
		t.Error("the phone is still locked")
	}
	_ = sims
}

// WebDriverAgent answering garbage, an error or nothing: clear errors, promptly, no panic.
func TestWDABadAnswers(t *testing.T) {
	sims, reg := simFarmLaunching(t, 1, false)
	d := ready(t, reg, "ios-sim-01")
	w := sims.Devices()[0].WDA()
	// Only the hang needs a short deadline; the others answer at once, and a deadline as short
	// could pass first on a loaded machine, their error then the deadline's.
	for _, f := range []struct {
		fault    wdasim.Fault
		says     string
		deadline time.Duration
	}{{wdasim.FaultGarbage, "screenshot", 5 * time.Second}, {wdasim.FaultError500, "XCTest crashed", 5 * time.Second},
		{wdasim.FaultHang, "deadline", 300 * time.Millisecond}} {
		w.SetFault(f.fault)
		ctx, cancel := context.WithTimeout(t.Context(), f.deadline)
		start := time.Now()
		_, err := d.Screenshot(ctx)
		cancel()
		if err == nil || !strings.Contains(err.Error(), f.says) {
			t.Errorf("fault %d: %v; want an error saying %q", f.fault, err, f.says)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("fault %d: took %s", f.fault, took)
		}
	}
	w.SetFault(wdasim.FaultNone)
	img, err := d.Screenshot(t.Context())
	if err != nil || img.Bounds() != image.Rect(0, 0, 750, 1334) {
		t.Fatalf("after the faults: %v %v", img, err)
	}
}

// The per-device rate limit holds WebDriverAgent's requests to --wda-rate a second, bursts
// of half as many aside: 30 requests at 20 a second take at least a second.
func TestRateLimitProtectsWDA(t *testing.T) {
	sims, reg := simFarmLaunching(t, 1, false)
	ready(t, reg, "ios-sim-01")
	d := New(Options{UDID: "ios-sim-01", DeviceID: reg.driver("ios-sim-01").DeviceID(), Mux: ParseMux(sims.Addr()),
		Facts: Facts{Trusted: true}, Rate: 20})
	defer d.Close()
	ctx := t.Context()
	if err := d.Health(ctx); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for range 30 {
		if _, err := d.wda.Status(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if took := time.Since(start); took < time.Second {
		t.Errorf("30 requests at --wda-rate 20 took %s: not limited", took)
	}
}

// A device that comes and goes while its driver is being made (unplugged mid-pair) leaves no
// driver behind, and the farm still takes the next one.
func TestDeviceVanishingMidAttach(t *testing.T) {
	sims, reg := simFarm(t, 0)
	dev, _ := plugIn(t, sims, iossim.Config{UDID: "ios-flaky"})
	for i := range 20 {
		sims.Host.Detach("ios-flaky")
		if i%3 == 0 {
			time.Sleep(time.Duration(i) * time.Millisecond) // vary where the unplug lands; not a wait
		}
		sims.Host.Attach(dev)
	}
	sims.Host.Detach("ios-flaky")
	eventually(t, 10*time.Second, func() bool { return reg.driver("ios-flaky") == nil }, "no driver left for the unplugged device")
	plugIn(t, sims, iossim.Config{UDID: "ios-after"})
	ready(t, reg, "ios-after")
	if reg.driver("ios-flaky") != nil {
		t.Error("a driver for the unplugged device came back")
	}
}

// usbmuxd stopping leaves the devices unhealthy with usbmuxd named first, as the cause (not
// WebDriverAgent, nor trust), and WDA not restarted for it; started again, they come back.
func TestUsbmuxdDownIsTheReason(t *testing.T) {
	sims, reg := simFarm(t, 1)
	d := ready(t, reg, "ios-sim-01")
	dev, _ := plugIn(t, sims, iossim.Config{UDID: "ios-untrusted", Untrusted: true})
	eventually(t, 10*time.Second, func() bool {
		err, ok := reg.healthOf("ios-untrusted")
		return ok && errors.Is(err, ErrUntrusted)
	}, "the untrusted iPhone asking for Trust")
	restarts := d.Gauges()["wda_restarts"]

	if err := sims.Host.Stop(); err != nil {
		t.Fatal(err)
	}
	cause := "usbmuxd at " + sims.Addr() + " does not answer: is it running?"
	for _, serial := range []string{"ios-sim-01", "ios-untrusted"} {
		eventually(t, 10*time.Second, func() bool {
			err, _ := reg.healthOf(serial)
			return err != nil && strings.HasPrefix(err.Error(), cause)
		}, serial+" unhealthy, usbmuxd named first")
	}
	err, _ := reg.healthOf("ios-sim-01")
	if !strings.Contains(err.Error(), "WebDriverAgent on port 8100 cannot be reached") || strings.Contains(err.Error(), "restarted it") {
		t.Errorf("the reason: %v", err)
	}
	if err, _ := reg.healthOf("ios-untrusted"); errors.Is(err, ErrUntrusted) {
		t.Errorf("the untrusted iPhone's reason still asks for Trust: %v", err)
	}
	if _, err := d.ForegroundApp(t.Context()); err == nil || !strings.Contains(err.Error(), cause) || !strings.Contains(err.Error(), "retry once it answers") {
		t.Errorf("a call while usbmuxd is down: %v", err)
	}
	reg.mu.Lock()
	probed := reg.reports["ios-sim-01"]
	reg.mu.Unlock()
	eventually(t, 10*time.Second, func() bool {
		reg.mu.Lock()
		defer reg.mu.Unlock()
		return reg.reports["ios-sim-01"] >= probed+4
	}, "more probes while usbmuxd is down")
	if got := d.Gauges()["wda_restarts"]; got != restarts {
		t.Errorf("WebDriverAgent restarted %v times while usbmuxd was down", got-restarts)
	}

	if err := sims.Host.Resume(); err != nil {
		t.Fatal(err)
	}
	ready(t, reg, "ios-sim-01")
	if reg.driver("ios-sim-01") != d {
		t.Fatal("ios-sim-01's driver was replaced")
	}
	if _, err := d.ForegroundApp(t.Context()); err != nil {
		t.Fatalf("after usbmuxd is back: %v", err)
	}
	eventually(t, 10*time.Second, func() bool {
		err, ok := reg.healthOf("ios-untrusted")
		return ok && errors.Is(err, ErrUntrusted)
	}, "the untrusted iPhone asking for Trust again")
	dev.Trust()
	ready(t, reg, "ios-untrusted")
}
