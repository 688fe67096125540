package tools_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/agent/model"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
	"github.com/corral-farm/corral/nodes/tools"
)

// QA pass Y: ai_query answered {"answer": ""}, a success, when the model answered with a tool
// call and no text. A model's answer without text is an error that says what the model did
// and what to try; one with text is the answer.
func TestAIQueryWithoutTextFails(t *testing.T) {
	srv := modelsim.New(
		modelsim.Call(modelsim.ToolCall{Name: "tap_xy", Arguments: `{"x":0.5,"y":0.5}`}),
		modelsim.Turn{Text: "42%"},
	)
	t.Cleanup(srv.Close)
	m, err := model.NewClient(model.Config{BaseURL: srv.BaseURL(), Model: "modelsim"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ask := func() (tools.Output, error) {
		return agentOp(t, context.Background(), m, nil, "ai_query", `{"prompt":"what is the battery level?"}`)
	}
	out, err := ask()
	var op *tools.OpError
	if !errors.As(err, &op) || tools.ErrorCode(err) != "" {
		t.Fatalf("ai_query of an answer without text: %+v, %v; want a model's failure: no code (not %s, the device's)", out.Data, err, broker.CodeDriver)
	}
	for _, w := range []string{"ai_query: the model", "answered with 1 tool call(s) (tap_xy) and no text", `finish reason "tool_calls"`, "ask again"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
	out, err = ask()
	if err != nil {
		t.Fatal(err)
	}
	if got := out.Data.(tools.AIQueryResult).Answer; got != "42%" {
		t.Errorf("answer %q", got)
	}
}
