package tools

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// MaxTexts bounds the texts of swipe_to_tap_texts.
const MaxTexts = 20

// SwipeToTapTextsArgs are swipe_to_tap_texts's arguments (HttpRunner seed).
type SwipeToTapTextsArgs struct {
	Texts               []string `json:"texts" arg:"required,maxItems=20" desc:"Texts; the first found is tapped" help:"a list of texts to look for"`
	Regex               bool     `json:"regex,omitempty" desc:"texts are regular expressions (RE2)"`
	MaxRetryTimes       int      `json:"max_retry_times,omitempty" arg:"min=0,max=50" desc:"Most swipes (default 10)"`
	IgnoreNotFoundError bool     `json:"ignore_NotFoundError,omitempty" desc:"Not found is no error"`
	Direction           string   `json:"direction,omitempty" arg:"enum=up|down|left|right" desc:"Where the finger moves (default up)"`
	Interval            float64  `json:"interval,omitempty" arg:"min=0,max=10" unit:"seconds" desc:"Seconds after each swipe (default 0.5)"`
	Behaviour
}

// Check refuses empty and overlong texts.
func (a *SwipeToTapTextsArgs) Check() error {
	for i, s := range a.Texts {
		switch {
		case strings.TrimSpace(s) == "":
			return fmt.Errorf("texts[%d] is empty: give each text to look for", i)
		case len(s) > MaxTextBytes:
			return fmt.Errorf("texts[%d] is %d bytes long; at most %d", i, len(s), MaxTextBytes)
		}
	}
	return nil
}

// SwipeToTapTextsResult is swipe_to_tap_texts's structured result (HttpRunner seed: message,
// texts, foundText).
type SwipeToTapTextsResult struct {
	Message   string   `json:"message" jsonschema:"What was found and tapped, or why not"`
	Texts     []string `json:"texts" jsonschema:"The texts looked for"`
	FoundText string   `json:"foundText" jsonschema:"The text as the screen shows it"`
	TextTap
	Hint string `json:"hint"`
}

func swipeToTapTexts() Tool {
	return Define[SwipeToTapTextsArgs, SwipeToTapTextsResult](Tool{Name: "swipe_to_tap_texts",
		Description: "Swipe until one of the texts shows (UI tree, else OCR), then tap it.",
		Timeout:     2 * time.Minute, MaxTimeout: 10 * time.Minute, Profiles: []string{HttpRunner}, Step: StepObject, Progress: true,
		Short: Short{Kind: ShortTextList, Keys: []string{"texts"}, Usage: `a list of texts, e.g. ["Allow", "OK"]`},
		Needs: []Ability{Need[device.Swiper]("swipe")},
	}, func(ctx context.Context, t *Task, a SwipeToTapTextsArgs) (Output, error) {
		qs := make([]textQuery, len(a.Texts))
		names := make([]string, len(a.Texts))
		for i, s := range a.Texts {
			q, err := newTextQuery(s, a.Regex)
			if err != nil {
				return Output{}, err
			}
			qs[i], names[i] = q, q.String()
		}
		look, swipes, err := swipeToFind(ctx, t, qs, a.Index, // index: HttpRunner's general option
			[]swipePhase{{dir: directionOr(a.Direction, "up"), max: swipesOr(a.MaxRetryTimes, defaultSwipesToTap)}}, swipeInterval(a.Interval))
		if err != nil {
			return Output{}, err
		}
		what := sought{name: fmt.Sprintf("the texts %s (after %s)", strings.Join(names, ", "), countOf(swipes, "swipe")), many: true}
		if len(names) == 1 {
			what = sought{name: fmt.Sprintf("text %s (after %s)", names[0], countOf(swipes, "swipe"))}
		}
		if !look.found {
			return notFoundResult(look, what, a.Index, a.IgnoreNotFoundError, func(msg string) any {
				return SwipeToTapTextsResult{Message: msg, Texts: a.Texts, TextTap: TextTap{Swipes: swipes}, Hint: hintNotFoundSwept}
			})
		}
		p, err := tapHit(ctx, t, look.hit, look.size, nil)
		if err != nil {
			return Output{}, err
		}
		return Output{Data: SwipeToTapTextsResult{Message: tappedMessage(look, p, swipes) + " (looked for " + strconv.Itoa(len(a.Texts)) + " texts)",
			Texts: a.Texts, FoundText: look.hit.Text, TextTap: look.tapped(p, swipes), Hint: hintTap}}, nil
	})
}
