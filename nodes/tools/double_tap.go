package tools

import (
	"context"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

func doubleTap() Tool {
	return Define[BBoxArgs, BBoxResult](Tool{Name: "double_tap", Description: "Tap twice quickly at the centre of a bbox (PhysiClaw): zoom a map, photo or page, or select a word. For buttons use tap.",
		ArgDesc: map[string]string{"bbox": "Where to double-tap: the centre of [left, top, right, bottom], relative 0-1"},
		Timeout: 10 * time.Second, MaxTimeout: 2 * time.Minute, Profiles: []string{PhysiClaw}, Step: StepBBox, Short: bboxShort,
		Needs: []Ability{Need[device.DoubleTapper]("double-tap")},
	}, atBBoxCentre("double-tapped", hintDoubleTap, func(ctx context.Context, t *Task, p device.Point) error {
		return t.doubleTapAt(ctx, p)
	}))
}
