package model_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/corral-farm/corral/nodes/agent/model"
)

// TestSecretNeverShows prints, marshals and logs a config every way a careless line might.
func TestSecretNeverShows(t *testing.T) {
	cfg := model.Config{BaseURL: "http://127.0.0.1:11434/v1", APIKey: model.NewSecret(testKey), Model: "m"}
	c, err := model.NewClient(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	type holder struct {
		cfg    model.Config // unexported: fmt reads it without calling methods
		Public model.Config
		key    model.Secret
		client *model.Client
	}
	h := holder{cfg: cfg, Public: cfg, key: cfg.APIKey, client: c}

	var out []string
	for _, v := range []any{cfg, &cfg, cfg.APIKey, &cfg.APIKey, h, &h, c, *c} {
		out = append(out, fmt.Sprintf("%v|%+v|%#v|%s|%q|%x|%X|%d|%T", v, v, v, v, v, v, v, v, v))
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("json.Marshal(%T): %v", v, err)
		}
		out = append(out, string(b))
	}
	text, _ := cfg.APIKey.MarshalText()
	out = append(out, string(text), cfg.APIKey.String(), cfg.APIKey.GoString(), cfg.String())

	var logs bytes.Buffer
	for _, hnd := range []slog.Handler{slog.NewJSONHandler(&logs, nil), slog.NewTextHandler(&logs, nil)} {
		log := slog.New(hnd)
		log.Info("config", "cfg", cfg, "ptr", &cfg, "key", cfg.APIKey, "holder", h, "client", c)
		log.Info("attrs", slog.Any("cfg", cfg), slog.Group("g", "key", cfg.APIKey))
	}
	out = append(out, logs.String())

	all := strings.Join(out, "\n")
	if strings.Contains(all, testKey) {
		t.Errorf("the key shows in:\n%s", all)
	}
	// A password in the base URL (refused by Validate, so no client has one) is hidden where
	// this package words things itself.
	pw := model.Config{BaseURL: "http://user:hunter2@127.0.0.1:11434/v1", Model: "m"}
	if s := fmt.Sprint(pw) + pw.String(); strings.Contains(s, "hunter2") || !strings.Contains(s, "http://REDACTED@") {
		t.Errorf("base URL password: %s", s)
	}
	// And the redaction says something, rather than printing nothing.
	if !strings.Contains(logs.String(), `"key":"[redacted]"`) || !strings.Contains(fmt.Sprint(cfg), "[redacted]") {
		t.Errorf("redaction marker missing:\n%s", all)
	}
	if cfg.APIKey.Reveal() != testKey || !cfg.APIKey.IsSet() {
		t.Error("Reveal lost the key")
	}
	if model.NewSecret("").IsSet() || fmt.Sprint(model.NewSecret("")) != "" {
		t.Error("an empty secret claims a key")
	}
}

func TestConfigValidate(t *testing.T) {
	cases := []struct {
		name string
		cfg  model.Config
		says string // "" for valid
	}{
		{"nothing", model.Config{}, "agent tasks need a model: set OPENAI_MODEL (with OPENAI_API_KEY for OpenAI's API, or OPENAI_BASE_URL for another server), e.g. for Ollama OPENAI_BASE_URL=http://127.0.0.1:11434/v1"},
		{"ollama without key", model.Config{BaseURL: "http://127.0.0.1:11434/v1", Model: "qwen2.5vl"}, ""},
		{"openai with key", model.Config{APIKey: model.NewSecret("k"), Model: "gpt-4o"}, ""},
		{"openai without key", model.Config{Model: "gpt-4o"}, "needs an API key: set OPENAI_API_KEY or --openai-api-key-file"},
		{"not http", model.Config{BaseURL: "ftp://x/v1", Model: "m"}, "not an http(s) URL"},
		{"no host", model.Config{BaseURL: "127.0.0.1:11434", Model: "m"}, "not"},
		{"unparsable", model.Config{BaseURL: "http://[::1", Model: "m"}, "not a URL"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			if tc.says == "" {
				if err != nil {
					t.Fatal(err)
				}
				if !tc.cfg.Enabled() {
					t.Error("a valid config is not enabled")
				}
				return
			}
			checkErr(t, err, nil, tc.says)
			if _, nerr := model.NewClient(tc.cfg, nil); nerr == nil || nerr.Error() != err.Error() {
				t.Errorf("NewClient accepted or differed: %v", nerr)
			}
		})
	}
	if err := (model.Config{}).Validate(); err != model.ErrNotConfigured || (model.Config{}).Enabled() {
		t.Errorf("an empty config: %v", err)
	}
}
