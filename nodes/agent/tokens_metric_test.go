package agent_test

import (
	"context"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/corral-farm/corral/nodes/agent"
	"github.com/corral-farm/corral/nodes/agent/model"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// The tokens a task counts ("tokens" in its result) are the tokens corral_model_tokens_total
// counts, by kind, as the model server reported them with each answer.
func TestTaskTokensAreCounted(t *testing.T) {
	t.Parallel()
	used := func(turn modelsim.Turn, prompt, completion int) modelsim.Turn {
		turn.Usage = &modelsim.Usage{PromptTokens: prompt, CompletionTokens: completion}
		return turn
	}
	srv := modelsim.New(
		used(plan(step{Title: "Go home"}), 1000, 50),
		used(call("press_button", map[string]string{"button": "HOME"}), 1200, 20),
		used(stepDone("success", "home"), 1300, 10),
		used(finished("on the home screen"), 1400, 5),
	)
	t.Cleanup(srv.Close)
	reg := prometheus.NewRegistry()
	c, err := model.NewClient(model.Config{BaseURL: srv.BaseURL(), Model: "modelsim"}, nil, model.WithMetrics(model.NewMetrics(reg)))
	if err != nil {
		t.Fatal(err)
	}
	task := run(t, context.Background(), agent.Options{Goal: "Go to the home screen", Model: c, Device: newPhone(t)})
	wantStatus(t, task, agent.StatusFinished)

	want := map[string]int{"prompt": 4900, "completion": 85}
	if task.Usage.PromptTokens != want["prompt"] || task.Usage.CompletionTokens != want["completion"] || task.Usage.TotalTokens != 4985 {
		t.Fatalf("the task counted %+v, want 4900 prompt and 85 completion tokens", task.Usage)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, mf := range mfs {
		if mf.GetName() != "corral_model_tokens_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "kind" {
					got[l.GetValue()] = int(m.GetCounter().GetValue())
				}
			}
		}
	}
	if got["prompt"] != want["prompt"] || got["completion"] != want["completion"] || len(got) != 2 {
		t.Errorf("corral_model_tokens_total %v, want %v", got, want)
	}
}
