package tools

import (
	"context"
	"fmt"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// LongPressHold is how long long_press keeps the finger down (PhysiClaw: about 1.2 s).
const LongPressHold = 1200 * time.Millisecond

func longPress() Tool {
	return Define[BBoxArgs, BBoxResult](Tool{Name: "long_press", Description: "Press and hold for 1.2 s at the centre of a bbox (PhysiClaw): context menus, edit mode, the paste popup after send_to_clipboard.",
		ArgDesc: map[string]string{"bbox": "Where to press: the centre of [left, top, right, bottom], relative 0-1"},
		Timeout: 10 * time.Second, MaxTimeout: 2 * time.Minute, Profiles: []string{PhysiClaw}, Step: StepBBox, Short: bboxShort,
	}, atBBoxCentre(fmt.Sprintf("long-pressed (%s)", LongPressHold), hintLongPress, func(ctx context.Context, t *Task, p device.Point) error {
		return t.tapAt(ctx, p, LongPressHold)
	}))
}
