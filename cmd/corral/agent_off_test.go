package main

import (
	"bytes"
	"flag"
	"log/slog"
	"strings"
	"testing"

	"github.com/corral-farm/corral/nodes/agent/model"
)

// QA: with OPENAI_API_KEY alone, `corral up` said nothing of agent tasks (with a model it logs
// "agent tasks use a model"). It logs one INFO line that they are off and what is missing.
func TestNodeSaysAgentTasksAreOff(t *testing.T) {
	fs := flag.NewFlagSet("up", flag.ContinueOnError)
	env := map[string]string{"OPENAI_API_KEY": "sk-never-shown"}
	s := nodeSettings{model: model.Flags(fs, func(k string) (string, bool) { v, ok := env[k]; return v, ok })}
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	m, err := s.agentModel(slog.New(slog.NewTextHandler(&logs, nil)), nil)
	if err != nil || m != nil {
		t.Fatalf("model %v, err %v", m, err)
	}
	out := logs.String()
	if strings.Count(out, "\n") != 1 || !strings.Contains(out, "level=INFO") ||
		!strings.Contains(out, "agent tasks are off: OPENAI_API_KEY is set, but no model: set OPENAI_MODEL or --openai-model") ||
		strings.Contains(out, "sk-never-shown") {
		t.Errorf("logs:\n%s", out)
	}
}
