package tools

import (
	"context"
	"fmt"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// SwipeToTapTextArgs are swipe_to_tap_text's arguments (HttpRunner seed).
type SwipeToTapTextArgs struct {
	Text                string  `json:"text" arg:"required,maxLength=1000" desc:"Text to find and tap" help:"the text to find on screen"`
	Regex               bool    `json:"regex,omitempty" desc:"text is a regular expression (RE2)"`
	MaxRetryTimes       int     `json:"max_retry_times,omitempty" arg:"min=0,max=50" desc:"Most swipes (default 10)"`
	IgnoreNotFoundError bool    `json:"ignore_NotFoundError,omitempty" desc:"Not found is no error"`
	Direction           string  `json:"direction,omitempty" arg:"enum=up|down|left|right" desc:"Where the finger moves (default up)"`
	Interval            float64 `json:"interval,omitempty" arg:"min=0,max=10" unit:"seconds" desc:"Seconds after each swipe (default 0.5)"`
	TapOffset           []int   `json:"tap_offset,omitempty" arg:"minItems=2,maxItems=2,itemMin=-2000,itemMax=2000" desc:"[dx,dy] pixels from its centre"`
	Behaviour
}

// defaultSwipesToTap is how many swipes swipe_to_tap_text and swipe_to_tap_texts make at most
// when max_retry_times is not given.
const defaultSwipesToTap = 10

func swipeToTapText() Tool {
	return Define[SwipeToTapTextArgs, TapTextResult](Tool{Name: "swipe_to_tap_text",
		Description: "Swipe until a text shows (UI tree, else OCR), then tap it.",
		Timeout:     2 * time.Minute, MaxTimeout: 10 * time.Minute, Profiles: []string{HttpRunner}, Step: StepObject, Progress: true, Short: textShort,
		Needs: []Ability{Need[device.Swiper]("swipe")},
	}, func(ctx context.Context, t *Task, a SwipeToTapTextArgs) (Output, error) {
		q, err := newTextQuery(a.Text, a.Regex)
		if err != nil {
			return Output{}, err
		}
		look, swipes, err := swipeToFind(ctx, t, []textQuery{q}, a.Index, // index: HttpRunner's general option
			[]swipePhase{{dir: directionOr(a.Direction, "up"), max: swipesOr(a.MaxRetryTimes, defaultSwipesToTap)}}, swipeInterval(a.Interval))
		if err != nil {
			return Output{}, err
		}
		if !look.found {
			return notFoundResult(look, sought{name: fmt.Sprintf("text %s (after %s)", q, countOf(swipes, "swipe"))}, a.Index, a.IgnoreNotFoundError, func(msg string) any {
				return TapTextResult{Message: msg, TextTap: TextTap{Swipes: swipes}, Hint: hintNotFoundSwept}
			})
		}
		p, err := tapHit(ctx, t, look.hit, look.size, a.TapOffset)
		if err != nil {
			return Output{}, err
		}
		return Output{Data: TapTextResult{Message: tappedMessage(look, p, swipes), Text: look.hit.Text, TextTap: look.tapped(p, swipes), Hint: hintTap}}, nil
	})
}

// directionOr is dir, or def when it is empty.
func directionOr(dir, def string) string {
	if dir == "" {
		return def
	}
	return dir
}

// swipesOr is n, or def when it is 0.
func swipesOr(n, def int) int {
	if n == 0 {
		return def
	}
	return n
}
