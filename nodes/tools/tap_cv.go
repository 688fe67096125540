package tools

import (
	"context"
	"fmt"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/vision"
)

// TapCVArgs are tap_cv's arguments (HttpRunner seed, with its common behaviour options).
type TapCVArgs struct {
	ImagePath           string  `json:"imagePath" arg:"required,maxLength=3000000" desc:"Template image: a file on the node, base64 or a data URL" help:"the image to find: a file on the node, base64 or a data URL"`
	Threshold           float64 `json:"threshold,omitempty" arg:"min=0.1,max=1" desc:"Least match score 0-1 (default 0.8)"`
	IgnoreNotFoundError bool    `json:"ignore_NotFoundError,omitempty" desc:"Not found is no error"`
	MaxRetryTimes       int     `json:"max_retry_times,omitempty" arg:"min=0,max=20" desc:"Looks again this many times"`
	TapOffset           []int   `json:"tap_offset,omitempty" arg:"minItems=2,maxItems=2,itemMin=-2000,itemMax=2000" desc:"[dx,dy] pixels from its centre"`
	Behaviour
}

// TapCVResult is tap_cv's structured result.
type TapCVResult struct {
	Message    string        `json:"message" jsonschema:"Where the image was found and tapped, or why not"`
	Tapped     bool          `json:"tapped" jsonschema:"False when not found (and ignore_NotFoundError)"`
	BBox       []float64     `json:"bbox,omitempty" jsonschema:"Its box [l,t,r,b], relative 0-1"`
	Point      *device.Point `json:"point,omitempty" jsonschema:"Pixel tapped"`
	Confidence float64       `json:"confidence,omitempty" jsonschema:"Match score 0-1"`
	Scale      float64       `json:"scale,omitempty" jsonschema:"Its size on screen over the template's"`
	Hint       string        `json:"hint"`
}

func tapCV() Tool {
	return Define[TapCVArgs, TapCVResult](Tool{Name: "tap_cv",
		Description: "Find a template image on screen (a vision worker's template matching) and tap its centre.",
		Timeout:     30 * time.Second, MaxTimeout: 5 * time.Minute, Profiles: []string{HttpRunner}, Step: StepObject,
		Short: Short{Kind: ShortText, Keys: []string{"imagePath"}, Usage: "a template image: a file on the node, base64 or a data URL"},
	}, func(ctx context.Context, t *Task, a TapCVArgs) (Output, error) {
		for try := 0; ; try++ {
			img, err := t.Driver.Screenshot(ctx)
			if err != nil {
				return Output{}, err
			}
			size := img.Bounds().Size()
			tm, err := loadTemplate(a.ImagePath, t.env().Config.Shared, size)
			if err != nil {
				return Output{}, err
			}
			res, vi, err := askVision(ctx, t, img, len(tm.data), func(vi visionImage) (vision.MatchResult, error) {
				req := vision.MatchRequest{V: vision.WireVersion, Image: vi.data, Template: tm.data, Threshold: a.Threshold, Max: cvMatches}
				if vi.scale != 1 { // the screen shrank to fit: so does the template on it
					req.MinScale, req.MaxScale = 0.75*vi.scale, 1.5*vi.scale
				}
				return t.vision().Match(ctx, req)
			})
			if err != nil {
				return Output{}, err
			}
			if m, ok := pickMatch(res.Matches, a.Index); ok {
				box := vi.toScreen(m.Box)
				p, err := tapHit(ctx, t, textHit{Box: box}, size, a.TapOffset)
				if err != nil {
					return Output{}, err
				}
				return Output{Data: TapCVResult{Message: fmt.Sprintf("tapped the template (%dx%d, from %s) found at %s with score %.2f%s, at pixel (%d, %d)",
					tm.size.X, tm.size.Y, tm.from, box, m.Score, whichMatch(a.Index, len(res.Matches)), p.X, p.Y), Tapped: true, BBox: bboxOf(box, size), Point: &p,
					Confidence: round2(m.Score), Scale: round2(m.Scale / vi.scale), Hint: hintTap}}, nil
			}
			if try >= a.MaxRetryTimes {
				msg := fmt.Sprintf("the template (%dx%d) is not on screen (no match scores %.2f or more)", tm.size.X, tm.size.Y, thresholdOr(a.Threshold))
				if len(res.Matches) > 0 {
					msg = fmt.Sprintf("the template (%dx%d) shows %d times on screen (score %.2f or more), but index %d is out of range (0 to %d best first, or -1 to -%d)",
						tm.size.X, tm.size.Y, len(res.Matches), thresholdOr(a.Threshold), a.Index, len(res.Matches)-1, len(res.Matches))
				}
				if a.IgnoreNotFoundError {
					return Output{Data: TapCVResult{Message: msg + "; nothing tapped (ignore_NotFoundError)", Hint: hintImageNotFound}}, nil
				}
				return Output{}, &OpError{Code: broker.CodeNotFound, Msg: msg + "; peek to see the screen, lower threshold, or set ignore_NotFoundError"}
			}
			if err := pause(ctx, time.Second); err != nil {
				return Output{}, err
			}
		}
	})
}

// thresholdOr is the threshold a match request uses: th, or the worker's default.
func thresholdOr(th float64) float64 {
	if th == 0 {
		return 0.8
	}
	return th
}
