package tools

import (
	"context"

	"github.com/corral-farm/corral/nodes/device"
)

// pressKey presses key on d, a device.KeyPresser (the tools calling it need one); iOS devices
// have no BACK key.
func pressKey(ctx context.Context, d device.Driver, key string) error {
	if key == "BACK" && d.Info().Platform == device.PlatformIOS {
		return lacking(d, Ability{Doing: "press BACK (iOS devices have no back button)",
			Alternative: "go_back makes iOS's back gesture, a swipe right from the left edge"})
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
		return Output{Data: MessageResult{Message: pressedMessage(t.Driver, key), Hint: hint}}, nil
	}
}

// keyGesturer is a driver that makes keys as gestures (an arm's finger on an iPhone): it says
// what a key's press did, "" for a key it has no gesture for.
type keyGesturer interface {
	KeyGesture(key string) string
}

// pressedMessage says what pressing key on d did: "pressed HOME", or the gesture d made.
func pressedMessage(d device.Driver, key string) string {
	if g, ok := d.(keyGesturer); ok {
		if did := g.KeyGesture(key); did != "" {
			return did
		}
	}
	return "pressed " + key
}
