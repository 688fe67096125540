package tools

import (
	"context"
	"fmt"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// iOS has no BACK key: go_back there is the left-edge swipe, from the edge to 60% of the width
// at mid height, over iosBackSwipe.
const iosBackSwipe = 300 * time.Millisecond

func goBack() Tool {
	return Define[ActionArgs, MessageResult](Tool{Name: "go_back", Description: "Go back one screen (PhysiClaw name for BACK; on iOS the swipe from the left edge).",
		Timeout: 10 * time.Second, MaxTimeout: time.Minute, Profiles: []string{PhysiClaw}, Step: StepObject, Short: noParams,
		// BACK where the platform has one, the edge swipe on iOS: neither is needed everywhere.
		Uses: []Ability{Need[device.KeyPresser]("press BACK"),
			Need[device.Swiper]("go back (iOS has no back button, and this device cannot swipe from the edge)")},
	}, func(ctx context.Context, t *Task, _ ActionArgs) (Output, error) {
		if t.Driver.Info().Platform != device.PlatformIOS {
			k, ok := t.Driver.(device.KeyPresser)
			if !ok {
				return Output{}, Unsupported(t.Driver, "press BACK")
			}
			if err := k.PressKey(ctx, "BACK"); err != nil {
				return Output{}, err
			}
			return Output{Data: MessageResult{Message: pressedMessage(t.Driver, "BACK"), Hint: hintBack}}, nil
		}
		if _, ok := t.Driver.(device.Swiper); !ok {
			return Output{}, Unsupported(t.Driver, "go back (iOS has no back button, and this device cannot swipe from the edge)")
		}
		s, err := t.Driver.ScreenSize(ctx)
		if err != nil {
			return Output{}, err
		}
		from := device.Point{X: 0, Y: s.Height / 2}
		to := device.Point{X: scale(0.6, s.Width), Y: s.Height / 2}
		if err := t.swipeFrom(ctx, from, to, iosBackSwipe, 0); err != nil {
			return Output{}, err
		}
		return Output{Data: MessageResult{Hint: hintBack, Message: fmt.Sprintf(
			"swiped right from the left edge (the iOS back gesture): pixel (%d, %d) to (%d, %d) in %s", from.X, from.Y, to.X, to.Y, iosBackSwipe)}}, nil
	})
}
