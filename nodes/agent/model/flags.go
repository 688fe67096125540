package model

import (
	"flag"
	"fmt"
	"os"
	"strings"
)

// Flags defines --openai-base-url, --openai-model and --openai-api-key-file on fs and returns
// a function that, once fs is parsed, resolves the Config. Each setting comes from its flag,
// else CORRAL_OPENAI_*, else OPENAI_* (lookupEnv is os.LookupEnv outside tests; empty values
// count as unset). The key is read from the file (trailing newline trimmed) or the
// environment, never from an argument: a command line shows in every process listing.
func Flags(fs *flag.FlagSet, lookupEnv func(string) (string, bool)) func() (Config, error) {
	baseURL := fs.String("openai-base-url", "", "OpenAI-compatible API root (default: $CORRAL_OPENAI_BASE_URL, $OPENAI_BASE_URL, else "+DefaultBaseURL+")")
	model := fs.String("openai-model", "", "model for agent tasks, e.g. gpt-4o or qwen2.5vl (default: $CORRAL_OPENAI_MODEL, $OPENAI_MODEL)")
	keyFile := fs.String("openai-api-key-file", "", "file holding the API key (default: the key in $CORRAL_OPENAI_API_KEY, $OPENAI_API_KEY)")
	return func() (Config, error) {
		env := func(names ...string) string {
			for _, n := range names {
				if v, ok := lookupEnv(n); ok && strings.TrimSpace(v) != "" {
					return strings.TrimSpace(v)
				}
			}
			return ""
		}
		c := Config{
			BaseURL: first(*baseURL, env("CORRAL_OPENAI_BASE_URL", "OPENAI_BASE_URL"), DefaultBaseURL),
			Model:   first(*model, env("CORRAL_OPENAI_MODEL", "OPENAI_MODEL")),
		}
		if *keyFile != "" {
			key, err := ReadKeyFile(*keyFile)
			if err != nil {
				return Config{}, err
			}
			c.APIKey = key
		} else {
			c.APIKey = NewSecret(env("CORRAL_OPENAI_API_KEY", "OPENAI_API_KEY"))
		}
		return c, nil
	}
}

// ReadKeyFile reads an API key from a file, as mounted from a Kubernetes secret: surrounding
// whitespace (the trailing newline of echo or an editor) is not part of the key.
func ReadKeyFile(path string) (Secret, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Secret{}, fmt.Errorf("--openai-api-key-file: %w", err)
	}
	key := strings.TrimSpace(string(b))
	if key == "" {
		return Secret{}, fmt.Errorf("--openai-api-key-file %s is empty: put the API key in it, or drop the flag for a server without keys", path)
	}
	return NewSecret(key), nil
}

func first(vs ...string) string {
	for _, v := range vs {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}
