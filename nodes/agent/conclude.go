package agent

import (
	"context"
	"strings"

	"github.com/corral-farm/corral/nodes/agent/model"
)

// conclude asks the model for the conclusion once every step has succeeded without a
// finished. The steps are done whatever it answers, so a failed or empty answer only means
// the last step's summary stands as the conclusion; an abort still aborts.
func (r *runner) conclude(ctx context.Context) error {
	t := r.task
	t.Conclusion = r.lastSummary()
	if r.guard.tokensLeft(t.Usage) != nil {
		return nil
	}
	c := newConversation(concludePrompt, r.o.Budget.KeepImages)
	c.screen(recap(t.Goal, t.Steps, r.summaries, len(t.Steps)), r.lastObs)
	resp, err := r.chat(ctx, 0, c, []model.Tool{finishedTool})
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		r.log.Warn("no conclusion from the model; the last step's summary stands", modelFailure(err)...)
	}
	for _, call := range resp.ToolCalls {
		if call.Name != toolFinished {
			continue
		}
		if content, err := parseFinished(call.Arguments); err == nil && content != "" {
			t.Conclusion = content
			return nil
		}
	}
	if text := strings.TrimSpace(resp.Text); text != "" {
		t.Conclusion = cut(text, maxSummaryRunes)
	}
	return nil
}
