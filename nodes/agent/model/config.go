package model

import (
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
)

// DefaultBaseURL is OpenAI's API, the base URL when none is configured.
const DefaultBaseURL = "https://api.openai.com/v1"

// ErrNotConfigured says no model is configured, so agent tasks cannot run.
var ErrNotConfigured = errors.New("agent tasks need a model: set OPENAI_MODEL (with OPENAI_API_KEY for OpenAI's API, " +
	"or OPENAI_BASE_URL for another server), e.g. for Ollama OPENAI_BASE_URL=http://127.0.0.1:11434/v1 OPENAI_MODEL=qwen2.5vl")

// Config says which model to use and where. It prints and logs without the key.
type Config struct {
	// BaseURL is the OpenAI-compatible API root, usually ending in /v1.
	BaseURL string
	APIKey  Secret
	// KeySource says where APIKey came from, so that a refused key's hint names the place to
	// fix it: KeyFromFile and the file's path, KeyFromCorralEnv or KeyFromEnv ("" when set in
	// code). Flags fills it in.
	KeySource string
	// Model is the server's model name, e.g. gpt-4o or qwen2.5vl:7b.
	Model string
	// Stream makes every call ask for its answer as server-sent events, so the text shows
	// while the model writes it. Off by default: not every compatible server streams tool calls.
	Stream bool
}

// Enabled says whether a model is configured at all; without one the node runs no agent tasks.
func (c Config) Enabled() bool { return c.Model != "" }

// Validate says what is missing or wrong, with what to set.
func (c Config) Validate() error {
	if !c.Enabled() {
		return ErrNotConfigured
	}
	u, err := url.Parse(c.baseURL())
	if err != nil {
		return fmt.Errorf("model base URL is not a URL (%v): set OPENAI_BASE_URL or --openai-base-url to e.g. %s", errors.Unwrap(err), DefaultBaseURL)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("model base URL %q is not an http(s) URL: set OPENAI_BASE_URL or --openai-base-url to e.g. %s or http://127.0.0.1:11434/v1",
			redactURL(c.baseURL()), DefaultBaseURL)
	}
	if err := checkBaseURL(u, c.baseURL()); err != nil {
		return err
	}
	if err := checkBaseURLPath(u, c.baseURL()); err != nil {
		return err
	}
	if err := checkKey(c.APIKey.Reveal(), c.KeySource); err != nil {
		return err
	}
	if u.Host == "api.openai.com" && !c.APIKey.IsSet() {
		return fmt.Errorf("model %q at %s needs an API key: set OPENAI_API_KEY or --openai-api-key-file", c.Model, redactURL(c.baseURL()))
	}
	return nil
}

// baseURL is BaseURL or the default, without a trailing slash.
func (c Config) baseURL() string {
	if c.BaseURL == "" {
		return DefaultBaseURL
	}
	return strings.TrimRight(c.BaseURL, "/")
}

// String names the endpoint, model and whether it streams; the key shows only as set or not.
func (c Config) String() string {
	return fmt.Sprintf("model %q at %s (api key %s, stream %t)", c.Model, redactURL(c.baseURL()), keyState(c.APIKey), c.Stream)
}

// LogValue logs the endpoint, model and whether it streams, never the key.
func (c Config) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("base_url", redactURL(c.baseURL())),
		slog.String("model", c.Model),
		slog.String("api_key", keyState(c.APIKey)),
		slog.Bool("stream", c.Stream),
	)
}

func keyState(s Secret) string {
	if s.IsSet() {
		return redacted
	}
	return "none"
}
