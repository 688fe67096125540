package nodes

import (
	"context"
	"log/slog"

	"github.com/corral-farm/corral/actors"
	"github.com/corral-farm/corral/broker"
)

// ScreenshotSaver keeps a node's agent task screenshots in the farm's object store
// (broker.ScreenshotBucket), counting them in /metrics and logging those it could not keep:
// the tools' OpsConfig.Screenshots.
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
		s.Log.Warn("a screenshot of an agent task was not kept", "task", task, "err", err)
	}
	return name, err
}
