package mcp

import (
	"context"
	"image"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/tools"
)

// unlock_phone and close_popups take only the common arguments: a passcode cannot even be
// passed, so it never travels in a task request or a record.
func TestUnlockPhoneAndClosePopupsSendTheirTask(t *testing.T) {
	for tool, want := range map[string]map[string]any{
		"unlock_phone": {"unlocked": true, "verified": true, "passcodeEntered": false},
		"close_popups": {"popupsClosed": 0.0},
	} {
		farm := newFakeFarm(t)
		cl := newTestClient(t, farm)
		data := wantOK(t, tool, call(t, cl, tool, map[string]any{"serial": phone}))
		for k, v := range want {
			if data[k] != v {
				t.Errorf("%s: %s = %v, want %v (%v)", tool, k, data[k], v, data)
			}
		}
		if h, _ := data["hint"].(string); !strings.Contains(h, "peek") {
			t.Errorf("%s: hint %q", tool, h)
		}
		if runs := farm.Runs(); len(runs) != 1 || runs[0].Tool != tool || string(runs[0].Args) != "{}" {
			t.Fatalf("%s: farm got %+v", tool, runs)
		}
		wantError(t, call(t, cl, tool, map[string]any{"serial": phone, "passcode": "1234"}), `unknown argument "passcode"`)
		if len(farm.Runs()) != 1 {
			t.Fatalf("%s: a call with a passcode reached the farm", tool)
		}
	}
}

// bareDriver has only the abilities every driver has, on a platform without a driver yet.
type bareDriver struct{}

func (bareDriver) Info() device.Info {
	return device.Info{Serial: "00008101-IPHONE", Platform: device.PlatformIOS}
}
func (bareDriver) ScreenSize(context.Context) (device.Size, error) {
	return device.Size{Width: 1170, Height: 2532}, nil
}
func (bareDriver) Screenshot(context.Context) (image.Image, error) {
	return image.NewGray(image.Rect(0, 0, 9, 16)), nil
}
func (bareDriver) Tap(context.Context, device.Point, time.Duration) error { return nil }

// A tool whose op needs an ability the device's driver lacks says which tool, which platform,
// and which platforms can, with their devices in the farm; the node's own words follow.
func TestUnsupportedNamesToolPlatformAndWhoCan(t *testing.T) {
	farm := newFakeFarm(t)
	farm.RunFn = func(ctx context.Context, req broker.TaskRequest, _ func(broker.Progress)) (broker.TaskResult, error) {
		res := broker.TaskResult{V: 1, ID: req.ID, Serial: req.Serial, Node: "n2", Tool: req.Tool, Submitted: time.Now()}
		_, err := tools.DefaultOps()[req.Tool].Run(ctx, &tools.Task{Driver: bareDriver{}, Args: req.Args})
		res.Outcome, res.Code, res.Error = broker.OutcomeRefused, tools.ErrorCode(err), "device "+req.Serial+": "+err.Error()
		return res, nil
	}
	android := []device.Platform{{Name: device.PlatformAndroid}} // the platforms the gateway is given
	cl := inProcessClient(t, New(farm, slog.New(slog.DiscardHandler), NewMetrics(prometheus.NewRegistry()), Options{Platforms: android}))
	for _, tool := range []string{"back", "unlock_phone", "close_popups", "swipe_direction"} {
		args := map[string]any{"serial": "00008101-IPHONE"}
		if tool == "swipe_direction" {
			args["direction"] = "up"
		}
		wantError(t, call(t, cl, tool, args), tool+" is not supported on ios devices; platforms that can: android (2 in this farm)",
			"(unsupported)", "device 00008101-IPHONE (ios) cannot")
	}
}
