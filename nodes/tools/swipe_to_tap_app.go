package tools

import (
	"context"
	"fmt"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// SwipeToTapAppArgs are swipe_to_tap_app's arguments (HttpRunner seed).
type SwipeToTapAppArgs struct {
	AppName             string  `json:"appName" arg:"required,maxLength=1000" desc:"App name under its icon" help:"the app's name as the home screen shows it"`
	MaxRetryTimes       int     `json:"max_retry_times,omitempty" arg:"min=0,max=50" desc:"Most swipes (default 5)"`
	IgnoreNotFoundError bool    `json:"ignore_NotFoundError,omitempty" desc:"Not found is no error"`
	Interval            float64 `json:"interval,omitempty" arg:"min=0,max=10" unit:"seconds" desc:"Seconds after each swipe (default 0.5)"`
	TapOffset           []int   `json:"tap_offset,omitempty" arg:"minItems=2,maxItems=2,itemMin=-2000,itemMax=2000" desc:"[dx,dy] pixels from its centre"`
	Behaviour
}

// SwipeToTapAppResult is swipe_to_tap_app's structured result (HttpRunner seed: message, appName).
type SwipeToTapAppResult struct {
	Message string `json:"message" jsonschema:"What was found and tapped, or why not"`
	AppName string `json:"appName" jsonschema:"The app found and tapped"`
	TextTap
	Hint string `json:"hint"`
}

// Home screen pages: how many swipes right reach the first page at most, and the default of
// swipes left through the pages, as HttpRunner's swipe_to_tap_app makes them.
const (
	homePagesBack    = 5
	defaultAppSwipes = 5
)

// iconAbove is how far above its name swipe_to_tap_app taps an app found by OCR (the icon is
// over its label), in pixels of a 1080-wide screen; HttpRunner taps 25 px above it.
const iconAbove = 25

func swipeToTapApp() Tool {
	return Define[SwipeToTapAppArgs, SwipeToTapAppResult](Tool{Name: "swipe_to_tap_app",
		Description: "Go home, swipe through the home screen pages until an app's name shows, then tap its icon.",
		Timeout:     2 * time.Minute, MaxTimeout: 10 * time.Minute, Profiles: []string{HttpRunner}, Step: StepObject, Progress: true,
		Short: Short{Kind: ShortText, Keys: []string{"appName"}, Usage: `an app's name, e.g. "Settings"`},
		Needs: []Ability{Need[device.Swiper]("swipe")},
		Uses:  []Ability{Need[device.KeyPresser]("go to the home screen")},
	}, func(ctx context.Context, t *Task, a SwipeToTapAppArgs) (Output, error) {
		q, err := newTextQuery(a.AppName, a.Regex) // regex, index: HttpRunner's general options
		if err != nil {
			return Output{}, err
		}
		if kp, ok := t.Driver.(device.KeyPresser); ok {
			if err := kp.PressKey(ctx, "HOME"); err != nil {
				return Output{}, fmt.Errorf("go to the home screen: %w", err)
			}
		}
		// Back to the first page (a swipe that moves nothing ends that), then through the pages.
		look, swipes, err := swipeToFind(ctx, t, []textQuery{q}, a.Index, []swipePhase{{dir: "right", max: homePagesBack},
			{dir: "left", max: swipesOr(a.MaxRetryTimes, defaultAppSwipes)}}, swipeInterval(a.Interval))
		if err != nil {
			return Output{}, err
		}
		if !look.found {
			return notFoundResult(look, sought{name: fmt.Sprintf("app %s (after %s of the home screen)", q, countOf(swipes, "swipe"))}, a.Index, a.IgnoreNotFoundError, func(msg string) any {
				return SwipeToTapAppResult{Message: msg, TextTap: TextTap{Swipes: swipes}, Hint: "list_packages and app_launch start an app by its package name."}
			})
		}
		offset := a.TapOffset
		if offset == nil && look.source == SourceOCR {
			offset = []int{0, -iconAbove * look.size.X / 1080}
		}
		p, err := tapHit(ctx, t, look.hit, look.size, offset)
		if err != nil {
			return Output{}, err
		}
		return Output{Data: SwipeToTapAppResult{Message: tappedMessage(look, p, swipes), AppName: look.hit.Text, TextTap: look.tapped(p, swipes), Hint: hintLaunch}}, nil
	})
}
