package model

import (
	"fmt"
	"net/url"
	"strings"
)

// endpointPaths are request paths the client adds to the base URL itself: a base URL that ends
// in one sends …/chat/completions/chat/completions, which servers answer 404, read as "does not
// know the model" at the first agent task.
var endpointPaths = []string{"/chat/completions", "/completions"}

// checkBaseURLPath refuses a base URL that ends in a request path, naming the API root to set.
func checkBaseURLPath(u *url.URL, raw string) error {
	p := strings.TrimRight(u.Path, "/")
	for _, e := range endpointPaths {
		if strings.HasSuffix(p, e) {
			root := strings.TrimSuffix(strings.TrimRight(raw, "/"), e)
			return fmt.Errorf("model base URL %s ends in %s, a request path the client adds itself: set OPENAI_BASE_URL or "+
				"--openai-base-url to the API root, %s", redactURL(raw), e, redactURL(root))
		}
	}
	return nil
}

// PathWarning is a warning for a base URL with no path, "" for one with a path: most
// OpenAI-compatible servers (Ollama, vLLM, LM Studio, OpenAI) serve under /v1, and without it
// every call is a 404. Some do serve at the root, so it is a warning, not a refusal; no probe
// checks it, since a check at the start must not reach out.
func (c Config) PathWarning() string {
	u, err := url.Parse(c.baseURL())
	if err != nil || strings.Trim(u.Path, "/") != "" {
		return ""
	}
	base := redactURL(c.baseURL())
	return fmt.Sprintf("model base URL %s has no path, but most OpenAI-compatible servers' API root ends in /v1: if agent tasks fail "+
		"with 404 (\"does not know the model\"), set OPENAI_BASE_URL or --openai-base-url to %s/v1", base, base)
}

// OffReason says, for a config with no model, what is missing for agent tasks, and what is set
// already: the one line a node logs at its start when they are off.
func (c Config) OffReason() string {
	switch {
	case c.Enabled():
		return ""
	case c.KeySource != "":
		return fmt.Sprintf("%s is set, but no model: set OPENAI_MODEL or --openai-model to turn them on "+
			"(and OPENAI_BASE_URL for a server other than OpenAI's)", c.KeySource)
	}
	return "no model: set OPENAI_MODEL or --openai-model to turn them on " +
		"(with OPENAI_API_KEY for OpenAI's API, or OPENAI_BASE_URL for another server)"
}
