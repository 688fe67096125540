package model_test

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/corral-farm/corral/nodes/agent/model"
)

// QA: a base URL ending in /v1/chat/completions passed the start's check, and the first agent
// task failed "does not know the model … (404)": the client adds /chat/completions itself. It is
// refused at the start, naming the API root to set.
func TestBaseURLEndingInARequestPathIsRefused(t *testing.T) {
	for raw, root := range map[string]string{
		"http://127.0.0.1:11434/v1/chat/completions":   "http://127.0.0.1:11434/v1",
		"https://llm.example/api/v1/chat/completions/": "https://llm.example/api/v1",
		"http://127.0.0.1:8000/v1/completions":         "http://127.0.0.1:8000/v1",
	} {
		err := model.Config{BaseURL: raw, Model: "m"}.Validate()
		if err == nil || !strings.Contains(err.Error(), "a request path the client adds itself") ||
			!strings.HasSuffix(err.Error(), "the API root, "+root) {
			t.Errorf("%s: %v", raw, err)
		}
	}
	for _, ok := range []string{"http://127.0.0.1:11434/v1", "https://res.services.ai.azure.com/models", "http://127.0.0.1:4000"} {
		if err := (model.Config{BaseURL: ok, Model: "m"}).Validate(); err != nil {
			t.Errorf("%s refused: %v", ok, err)
		}
	}
}

// QA: a base URL without /v1 passed the start's check silently, and every call was a 404. Some
// servers do serve at the root, so the start warns with the hint rather than refuses; one with
// a path gets no warning.
func TestBaseURLWithoutAPathIsWarnedOf(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	if _, err := model.NewClient(model.Config{BaseURL: "http://127.0.0.1:11434/", Model: "m"}, log); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "set OPENAI_BASE_URL or --openai-base-url to http://127.0.0.1:11434/v1") {
		t.Errorf("logs: %s", logs.String())
	}
	logs.Reset()
	if _, err := model.NewClient(model.Config{BaseURL: "http://127.0.0.1:11434/v1", Model: "m"}, log); err != nil {
		t.Fatal(err)
	}
	if logs.Len() != 0 {
		t.Errorf("a warning for a base URL with a path: %s", logs.String())
	}
}

// QA: with OPENAI_API_KEY alone, a node said nothing of agent tasks being off. OffReason, the
// line it logs, names the setting that is missing and the one that is set.
func TestOffReasonNamesWhatIsMissing(t *testing.T) {
	_, resolve := parseModelFlags(t, nil, map[string]string{"OPENAI_API_KEY": "sk-secret"})
	cfg, err := resolve()
	if err != nil {
		t.Fatal(err)
	}
	got := cfg.OffReason()
	if !strings.HasPrefix(got, "OPENAI_API_KEY is set, but no model: set OPENAI_MODEL or --openai-model") || strings.Contains(got, "sk-secret") {
		t.Errorf("OffReason %q", got)
	}
	if got := (model.Config{}).OffReason(); !strings.HasPrefix(got, "no model: set OPENAI_MODEL or --openai-model") {
		t.Errorf("OffReason of nothing %q", got)
	}
	if got := (model.Config{Model: "m"}).OffReason(); got != "" {
		t.Errorf("OffReason with a model %q", got)
	}
}
