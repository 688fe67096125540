package nodes

import (
	"context"
	"log/slog"

	"github.com/corral-farm/corral/actors"
	"github.com/corral-farm/corral/broker"
)

// ScreenshotSaver keeps a node's task screenshots in the farm's object store
// (broker.ScreenshotBucket): the screens of agent tasks' steps, and the marked screens of
// actions given pre_mark_operation. It counts them in /metrics and logs those it could not
// keep: the tools' OpsConfig.Screenshots.
type ScreenshotSaver struct {
	Stores  *broker.Stores
	Node    string
	Metrics *actors.Metrics // nil: not counted
	Log     *slog.Logger
}

// SaveScreenshot saves a JPEG screenshot of task and returns its name.
func (s ScreenshotSaver) SaveScreenshot(ctx context.Context, task string, jpeg []byte) (string, error) {
	name, err := s.Stores.SaveScreenshot(ctx, task, jpeg)
	if s.Metrics != nil {
		s.Metrics.Screenshot(s.Node, len(jpeg), err)
	}
	if err != nil {
		s.Log.Warn("a screenshot of a task was not kept", "task", task, "err", err)
	}
	return name, err
}

// SaveMarked saves the marked screen of an action of task (pre_mark_operation), counted as a
// screenshot and as a mark.
func (s ScreenshotSaver) SaveMarked(ctx context.Context, task string, jpeg []byte) (string, error) {
	name, err := s.SaveScreenshot(ctx, task, jpeg)
	if s.Metrics != nil {
		s.Metrics.MarkedScreenshot(s.Node, err)
	}
	return name, err
}

// MarkFailed counts and logs a marked screen of task that could not be made: the action went
// on unmarked.
func (s ScreenshotSaver) MarkFailed(task string, err error) {
	if s.Metrics != nil {
		s.Metrics.MarkedScreenshot(s.Node, err)
	}
	s.Log.Warn("the screen an action acted on could not be marked; the action went on", "task", task, "err", err)
}
