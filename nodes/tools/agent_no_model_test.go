package tools_test

import (
	"context"
	"strings"
	"testing"
)

// QA: a node without a model answered run_agent_task "set OPENAI_BASE_URL and OPENAI_MODEL",
// though OpenAI's API needs only the model (and its key): the refusal names the model as what
// is missing, and the base URL only for another server.
func TestAgentTaskWithoutAModelSaysTheModelIsMissing(t *testing.T) {
	_, err := agentOp(t, context.Background(), nil, nil, "run_agent_task", `{"goal":"open Settings"}`)
	if err == nil || !strings.Contains(err.Error(), "this node has none: set OPENAI_MODEL (or --openai-model)") ||
		!strings.Contains(err.Error(), "OPENAI_BASE_URL (--openai-base-url) too for another server") ||
		strings.Contains(err.Error(), "OPENAI_BASE_URL and") {
		t.Errorf("error %v", err)
	}
}
