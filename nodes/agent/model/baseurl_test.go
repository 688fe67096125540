package model_test

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/corral-farm/corral/internal/logtest"
	"github.com/corral-farm/corral/nodes/agent/model"
)

// A key in the base URL (Azure's ?api-key=, or user info) would be printed wherever the
// endpoint is named, and a query ends up inside the request path: such a URL is refused
// when the config is checked (so by --check-config and NewClient), without showing it.
func TestConfigRefusesSecretsInTheBaseURL(t *testing.T) {
	cases := []struct {
		name, url string
		says      []string
	}{
		{"query", "http://127.0.0.1:9/v1?api-key=sk-QUERYSECRET", []string{"has a query string", "api-key=REDACTED", "OPENAI_API_KEY or --openai-api-key-file"}},
		{"bare query", "http://127.0.0.1:9/v1?sk-QUERYSECRET", []string{"has a query string", "/v1?REDACTED"}},
		{"empty query", "http://127.0.0.1:9/v1?", []string{"has a query string"}},
		{"password", "http://u:sk-PASSSECRET@127.0.0.1:9/v1", []string{"user name or password", "http://REDACTED@127.0.0.1:9/v1", "OPENAI_API_KEY"}},
		{"user name", "https://sk-USERSECRET@example.com/v1", []string{"user name or password", "https://REDACTED@example.com/v1"}},
		{"fragment", "http://127.0.0.1:9/v1#sk-FRAGSECRET", []string{"has a fragment"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := model.Config{BaseURL: tc.url, Model: "m"}
			err := cfg.Validate()
			checkErr(t, err, nil, tc.says...)
			noSecret(t, err.Error())
			if _, nerr := model.NewClient(cfg, nil); nerr == nil {
				t.Error("NewClient took the URL")
			}
			// Through the flags, as corral --check-config resolves them.
			_, resolve := parseModelFlags(t, nil, map[string]string{"OPENAI_BASE_URL": tc.url, "OPENAI_MODEL": "m"})
			resolved, err := resolve()
			if err != nil {
				t.Fatal(err)
			}
			if err := resolved.Validate(); err == nil {
				t.Error("the resolved config passed Validate")
			}
		})
	}
}

// Should a URL with a secret get past the check, its text and log still hide the secret.
func TestConfigRedactsTheBaseURL(t *testing.T) {
	cfg := model.Config{BaseURL: "http://u:sk-PASSSECRET@127.0.0.1:9/v1?api-key=sk-QUERYSECRET&sk-BARESECRET#sk-FRAGSECRET", Model: "m"}
	s := cfg.String()
	noSecret(t, s)
	if !strings.Contains(s, "http://REDACTED@127.0.0.1:9/v1?api-key=REDACTED&REDACTED#REDACTED") {
		t.Errorf("String() = %s", s)
	}
	logs := &logtest.Buffer{}
	slog.New(slog.NewJSONHandler(logs, nil)).Info("model", "cfg", cfg)
	noSecret(t, logs.String())
}

func noSecret(t *testing.T, s string) {
	t.Helper()
	if strings.Contains(s, "SECRET") {
		t.Errorf("a secret shows: %s", s)
	}
}
