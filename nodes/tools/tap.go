package tools

import (
	"context"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

func tap() Tool {
	return Define[BBoxArgs, BBoxResult](Tool{Name: "tap", Description: "Tap once at the centre of a bbox (PhysiClaw): buttons, links, list items, dismissing dialogs.",
		Timeout: 10 * time.Second, MaxTimeout: 2 * time.Minute, Profiles: []string{PhysiClaw}, Step: StepBBox, Short: bboxShort,
	}, atBBoxCentre("tapped", hintTap, func(ctx context.Context, t *Task, p device.Point) error {
		return t.tapAt(ctx, p, 0)
	}))
}
