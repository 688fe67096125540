package tools

import (
	"context"
	"fmt"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// CloseTabArgs are web_close_tab's arguments (HttpRunner seed).
type CloseTabArgs struct {
	TabIndex *int `json:"tabIndex" arg:"required,min=0,max=1000" desc:"Tab index: the open tabs counted from 0, oldest first" help:"a tab index from 0"`
	Behaviour
}

// CloseTabResult is web_close_tab's structured result (HttpRunner seed).
type CloseTabResult struct {
	Message  string `json:"message" jsonschema:"What was done"`
	TabIndex int    `json:"tabIndex" jsonschema:"Index of the tab closed"`
	Hint     string `json:"hint,omitempty"`
}

func webCloseTab() Tool {
	return Define[CloseTabArgs, CloseTabResult](Tool{Name: "web_close_tab",
		Description: "Close a browser tab by its index (0 = the oldest open tab); the newest remaining tab comes to the front.",
		Timeout:     10 * time.Second, MaxTimeout: time.Minute, Profiles: []string{HttpRunner}, Step: StepObject,
		Short: Short{Kind: ShortWhole, Keys: []string{"tabIndex"}, Usage: "a tab index, e.g. 1"},
		Needs: []Ability{Need[device.TabCloser]("close tabs")},
	}, func(ctx context.Context, t *Task, a CloseTabArgs) (Output, error) {
		if err := t.Driver.(device.TabCloser).CloseTab(ctx, *a.TabIndex); err != nil {
			return Output{}, err
		}
		return Output{Data: CloseTabResult{Message: fmt.Sprintf("closed tab %d", *a.TabIndex), TabIndex: *a.TabIndex, Hint: hintAction}}, nil
	})
}
