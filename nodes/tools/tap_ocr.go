package tools

import (
	"context"
	"fmt"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
)

// MaxTextBytes bounds a text to find on screen: a label, not a document.
const MaxTextBytes = 1000

// TapOCRArgs are tap_ocr's arguments (HttpRunner seed, with its common behaviour options).
type TapOCRArgs struct {
	Text                string  `json:"text" arg:"required,maxLength=1000" desc:"Text to find and tap" help:"the text to find on screen"`
	Regex               bool    `json:"regex,omitempty" desc:"text is a regular expression (RE2)"`
	Index               int     `json:"index,omitempty" arg:"min=-100,max=100" desc:"Which match: 0 first, -1 last"`
	IgnoreNotFoundError bool    `json:"ignore_NotFoundError,omitempty" desc:"Not found is no error"`
	MaxRetryTimes       int     `json:"max_retry_times,omitempty" arg:"min=0,max=20" desc:"Looks again this many times"`
	Interval            float64 `json:"interval,omitempty" arg:"min=0,max=10" unit:"seconds" desc:"Seconds between looks (default 1)"`
	TapOffset           []int   `json:"tap_offset,omitempty" arg:"minItems=2,maxItems=2,itemMin=-2000,itemMax=2000" desc:"[dx,dy] pixels from its centre"`
	Behaviour
}

// TapTextResult is the structured result of tap_ocr and swipe_to_tap_text.
type TapTextResult struct {
	Message string `json:"message" jsonschema:"What was found and tapped, or why not"`
	Text    string `json:"text" jsonschema:"The text as the screen shows it"`
	TextTap
	Hint string `json:"hint"`
}

// TextTap is where a text search tapped: the fields tap_ocr and the swipe_to_tap tools share.
type TextTap struct {
	Tapped     bool          `json:"tapped" jsonschema:"False when not found (and ignore_NotFoundError)"`
	Source     string        `json:"source,omitempty" jsonschema:"Where it was found: ui_tree or ocr"`
	BBox       []float64     `json:"bbox,omitempty" jsonschema:"Its box [l,t,r,b], relative 0-1"`
	Point      *device.Point `json:"point,omitempty" jsonschema:"Pixel tapped"`
	Confidence float64       `json:"confidence,omitempty" jsonschema:"1 from the UI tree, else the OCR's 0-1"`
	Swipes     int           `json:"swipes,omitempty" jsonschema:"Swipes made before it showed"`
}

// tapped is the TextTap of look's hit, tapped at p after swipes.
func (look screenLook) tapped(p device.Point, swipes int) TextTap {
	return TextTap{Tapped: true, Source: look.source, BBox: bboxOf(look.hit.Box, look.size), Point: &p, Confidence: round2(look.hit.Conf), Swipes: swipes}
}

func tapOCR() Tool {
	return Define[TapOCRArgs, TapTextResult](Tool{Name: "tap_ocr",
		Description: "Find a text on screen (UI tree first, else OCR by a vision worker) and tap it.",
		Timeout:     30 * time.Second, MaxTimeout: 5 * time.Minute, Profiles: []string{HttpRunner}, Step: StepObject, Short: textShort,
	}, func(ctx context.Context, t *Task, a TapOCRArgs) (Output, error) {
		q, err := newTextQuery(a.Text, a.Regex)
		if err != nil {
			return Output{}, err
		}
		interval := time.Second
		if a.Interval > 0 {
			interval = seconds(a.Interval)
		}
		var look screenLook
		for try := 0; ; try++ {
			if look, err = lookFor(ctx, t, []textQuery{q}, a.Index, nil); err != nil {
				return Output{}, err
			}
			if look.found || look.ocrErr != nil || try >= a.MaxRetryTimes {
				break // no worker: looking again reads the same tree
			}
			if t.Progress != nil {
				t.Progress(float64(try+1), float64(a.MaxRetryTimes+1), fmt.Sprintf("%s not found yet (look %d of %d)", q, try+1, a.MaxRetryTimes+1))
			}
			if err := pause(ctx, interval); err != nil {
				return Output{}, err
			}
		}
		if !look.found {
			return notFoundResult(look, sought{name: "text " + q.String()}, a.Index, a.IgnoreNotFoundError, func(msg string) any {
				return TapTextResult{Message: msg, Hint: hintNotFound}
			})
		}
		p, err := tapHit(ctx, t, look.hit, look.size, a.TapOffset)
		if err != nil {
			return Output{}, err
		}
		return Output{Data: TapTextResult{Message: tappedMessage(look, p, 0), Text: look.hit.Text, TextTap: look.tapped(p, 0), Hint: hintTap}}, nil
	})
}

// Hints of a text or image not found: what to look at, and what may bring it into view (not
// the tool that just swiped in vain).
const (
	hintNotFound      = "peek to see what the screen shows; the text may need a swipe to come into view (swipe_to_tap_text)."
	hintNotFoundSwept = "peek to see what the screen shows; the text may be the other way (direction) or further (max_retry_times)."
	hintImageNotFound = "peek to see what the screen shows; the image may need a swipe to come into view, or a lower threshold."
)

// notFoundResult answers a search that found nothing: an error, or with ignore the result
// data makes of the message. A text the UI tree lacks when no vision worker could look for it
// is an error (vision_unavailable) whatever ignore says: nothing looked where it may be.
func notFoundResult(look screenLook, what sought, index int, ignore bool, data func(msg string) any) (Output, error) {
	if look.blind() {
		return Output{}, fmt.Errorf("cannot look for %s: %s, and %w", what.name, look.treeNote, look.ocrErr)
	}
	msg := look.notFound(what) + look.otherCase.hint()
	if look.matches > 0 {
		msg = fmt.Sprintf("%s %s %d matches on screen, but index %d is out of range (0 to %d, or -1 to -%d)", what.name, what.verb("has", "have"), look.matches, index, look.matches-1, look.matches)
	}
	// No worker is not "not found": the text may be drawn where only OCR sees it, so
	// ignore_NotFoundError (not found only, as the seed has it) does not hide it.
	if look.ocrErr != nil && look.matches == 0 {
		return Output{}, fmt.Errorf("%s %s not in the UI tree, and OCR could not look: %w%s", what.name, what.verb("is", "are"), look.ocrErr, look.otherCase.hint())
	}
	if ignore {
		return Output{Data: data(msg + "; nothing tapped (ignore_NotFoundError)")}, nil
	}
	return Output{}, &OpError{Code: broker.CodeNotFound, Msg: msg + "; peek to see the screen, or set ignore_NotFoundError"}
}

// tappedMessage says what was tapped, where and how it was found.
func tappedMessage(look screenLook, p device.Point, swipes int) string {
	how := "in the UI tree"
	if look.source == SourceOCR {
		how = fmt.Sprintf("by OCR (confidence %.2f)", look.hit.Conf)
	}
	after := ""
	if swipes > 0 {
		after = " after " + countOf(swipes, "swipe")
	}
	return fmt.Sprintf("tapped %q, found %s%s, at pixel (%d, %d)", look.hit.Text, how, after, p.X, p.Y)
}

// round2 rounds a confidence to 2 decimals.
func round2(v float64) float64 { return float64(int(v*100+0.5)) / 100 }

// pause waits d or until ctx ends.
func pause(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}
