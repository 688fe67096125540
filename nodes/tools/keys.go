package tools

import (
	"context"

	"github.com/corral-farm/corral/nodes/device"
)

// pressKey presses key on d, a device.KeyPresser (the tools calling it need one); iOS devices
// have no BACK key.
func pressKey(ctx context.Context, d device.Driver, key string) error {
	if key == "BACK" && d.Info().Platform == device.PlatformIOS {
		return Unsupported(d, "press BACK (iOS devices have no back button; swipe right from the left edge instead)")
	}
	return d.(device.KeyPresser).PressKey(ctx, key)
}

// pressOneKey is the run of a tool without arguments that presses one key (home, back,
// home_screen), which Needs device.KeyPresser.
func pressOneKey(key, hint string) func(context.Context, *Task, ActionArgs) (Output, error) {
	return func(ctx context.Context, t *Task, _ ActionArgs) (Output, error) {
		if err := pressKey(ctx, t.Driver, key); err != nil {
			return Output{}, err
		}
		return Output{Data: MessageResult{Message: "pressed " + key, Hint: hint}}, nil
	}
}
