package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A model setting Corral refuses is a flag value refused (exit 2, as the README says), from a
// flag or the environment, and so is a blank one and a key file that cannot be read, whose
// error names the flag and where else the key may come from (QA: it exited 1 with only
// "open …: no such file or directory"). They exited 1 alike.
func TestModelSettingsRefusedExitTwo(t *testing.T) {
	noNATSSettings(t)
	for _, name := range []string{"OPENAI_BASE_URL", "OPENAI_MODEL", "OPENAI_API_KEY", "CORRAL_OPENAI_BASE_URL", "CORRAL_OPENAI_MODEL", "CORRAL_OPENAI_API_KEY"} {
		t.Setenv(name, "")
	}
	missing := filepath.Join(t.TempDir(), "no-key")
	for _, c := range []struct {
		name string
		env  map[string]string
		args []string
		code int
	}{
		{"query string", nil, []string{"--openai-model", "m", "--openai-base-url", "http://x/v1?api-key=1"}, 2},
		{"chat path", nil, []string{"--openai-model", "m", "--openai-base-url", "http://x/v1/chat/completions"}, 2},
		{"user in URL", nil, []string{"--openai-model", "m", "--openai-base-url", "http://u:p@x/v1"}, 2},
		{"base URL without model", map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:1/v1"}, nil, 2},
		{"key file unreadable", nil, []string{"--openai-model", "m", "--openai-api-key-file", missing}, 2},
		// a blank setting passed (the model, the base URL) or failed to open a file named " " (exit 1)
		{"blank model", nil, []string{"--openai-model", " "}, 2},
		{"blank base URL", map[string]string{"OPENAI_API_KEY": "sk-test"}, []string{"--openai-model", "m", "--openai-base-url", " "}, 2},
		{"blank key file", nil, []string{"--openai-model", "m", "--openai-api-key-file", " "}, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			var err error
			captureStderr(t, func() {
				err = commandNamed(t, "up").run(t.Context(), append([]string{"--check-config", "--log-level", "error", "--sim", "1"}, c.args...))
			})
			require.Error(t, err)
			assert.Equal(t, c.code, exitCode("up", err), "%v", err)
			if c.name == "key file unreadable" {
				assert.Contains(t, err.Error(), "--openai-api-key-file: open "+missing+": no such file or directory")
				assert.Contains(t, err.Error(), "or leave the flag out for the key in $CORRAL_OPENAI_API_KEY or $OPENAI_API_KEY")
			}
		})
	}
}
