package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/corral-farm/corral/nodes/agent"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// wantWords fails unless text says every one of want and none of wrong.
func wantWords(t *testing.T, text string, want, wrong []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%q lacks %q", text, w)
		}
	}
	for _, w := range wrong {
		if strings.Contains(text, w) {
			t.Errorf("%q says %q", text, w)
		}
	}
}

// QA Q9 M2: a model that its token limit (finish_reason length) or the server's content filter
// stopped before it wrote anything was told it "answered nothing", twice, with the advice to
// turn --openai-stream off: asking again gets the same, and the client's own words say what
// to do.
func TestEmptyAnswerForItsLimitSaysSo(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		finish string
		want   []string
	}{
		{"length", []string{"ran out of tokens", "num_predict"}},
		{"content_filter", []string{"content filter", "finish_reason content_filter"}},
	} {
		t.Run(tc.finish, func(t *testing.T) {
			t.Parallel()
			r := newStreamingRig(t, modelsim.Turn{FinishReason: tc.finish}, modelsim.Turn{FinishReason: tc.finish})
			task := run(t, context.Background(), r.options("open Settings"))
			wantStatus(t, task, agent.StatusFailed)
			wantWords(t, task.Error, tc.want, []string{"answered nothing", "--openai-stream", "no usable plan"})
			if n := len(r.srv.Requests()); n != 1 {
				t.Errorf("%d requests: the same conversation gets the same answer, so it is asked once", n)
			}
		})
	}
}

// QA Q9 M2: a plan whose arguments the token limit cut short ended "use a model that calls
// tools"; it says the token limit cut it.
func TestPlanCutByTheTokenLimitSaysSo(t *testing.T) {
	t.Parallel()
	cut := modelsim.Turn{FinishReason: "length", ToolCalls: []modelsim.ToolCall{{Name: "plan", Arguments: `{"steps":[{"title":"Open Sett`}}}
	r := newRig(t, cut, cut)
	task := run(t, context.Background(), r.options("open Settings"))
	wantStatus(t, task, agent.StatusFailed)
	wantWords(t, task.Error, []string{"cut short by its token limit", "finish_reason length"}, []string{"try a model that calls tools"})
}

// QA Q9 M2: a step whose tool calls the token limit cut short, turn after turn, ended "use a
// model that follows tool schemas"; it says the token limit cut them.
func TestStepCallsCutByTheTokenLimitSaySo(t *testing.T) {
	t.Parallel()
	cut := modelsim.Turn{FinishReason: "length", ToolCalls: []modelsim.ToolCall{{Name: "tap_xy", Arguments: `{"x":0.5,"y`}}}
	r := newRig(t, plan(step{Title: "Tap"}), cut, cut, cut, cut, cut, cut)
	task := run(t, context.Background(), r.options("tap"))
	wantStatus(t, task, agent.StatusFailed)
	wantWords(t, task.Error, []string{"cut short by its token limit", "finish_reason length"}, []string{"follows tool schemas"})
}

// QA Q9 M2: a streaming model that called a tool other than plan (tap, during planning) was
// told to turn --openai-stream off, though its call came through the stream intact: that
// hint is for a stream with text and no tool call.
func TestStreamHintOnlyWhenNoCallCame(t *testing.T) {
	t.Parallel()
	r := newStreamingRig(t, tapXY(0.5, 0.5), tapXY(0.5, 0.5))
	task := run(t, context.Background(), r.options("open Settings"))
	wantStatus(t, task, agent.StatusFailed)
	wantWords(t, task.Error, []string{"it called tap_xy, not plan"}, []string{"--openai-stream"})

	r = newStreamingRig(t, modelsim.Turn{Text: "I would open Settings."}, modelsim.Turn{Text: "I would open Settings."})
	task = run(t, context.Background(), r.options("open Settings"))
	wantStatus(t, task, agent.StatusFailed)
	wantWords(t, task.Error, []string{"answered text", "turn --openai-stream off"}, nil)
}
