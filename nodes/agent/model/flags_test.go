package model_test

import (
	"flag"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corral-farm/corral/internal/logtest"
	"github.com/corral-farm/corral/nodes/agent/model"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

func TestFlagsPrecedence(t *testing.T) {
	keyFile := writeKeyFile(t, "sk-from-file\n")
	full := map[string]string{
		"CORRAL_OPENAI_BASE_URL": "http://corral/v1", "OPENAI_BASE_URL": "http://openai/v1",
		"CORRAL_OPENAI_MODEL": "corral-model", "OPENAI_MODEL": "openai-model",
		"CORRAL_OPENAI_API_KEY": "sk-corral", "OPENAI_API_KEY": "sk-openai",
	}
	cases := []struct {
		name           string
		args           []string
		env            map[string]string
		base, mdl, key string
	}{
		{"flags win", []string{"--openai-base-url", "http://flag/v1/", "--openai-model", "flag-model", "--openai-api-key-file", keyFile}, full,
			"http://flag/v1/", "flag-model", "sk-from-file"},
		{"CORRAL_ env next", nil, full, "http://corral/v1", "corral-model", "sk-corral"},
		{"OPENAI_ env last", nil, map[string]string{"OPENAI_BASE_URL": "http://openai/v1", "OPENAI_MODEL": "openai-model", "OPENAI_API_KEY": "sk-openai"},
			"http://openai/v1", "openai-model", "sk-openai"},
		{"empty values count as unset", nil, map[string]string{"CORRAL_OPENAI_BASE_URL": "", "OPENAI_BASE_URL": "http://openai/v1",
			"CORRAL_OPENAI_MODEL": " ", "OPENAI_MODEL": "openai-model", "CORRAL_OPENAI_API_KEY": "", "OPENAI_API_KEY": "sk-openai"},
			"http://openai/v1", "openai-model", "sk-openai"},
		{"defaults", nil, nil, model.DefaultBaseURL, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, resolve := parseModelFlags(t, tc.args, tc.env)
			cfg, err := resolve()
			if err != nil {
				t.Fatal(err)
			}
			if cfg.BaseURL != tc.base || cfg.Model != tc.mdl || cfg.APIKey.Reveal() != tc.key {
				t.Errorf("got %s %s key %q; want %s %s key %q", cfg.BaseURL, cfg.Model, cfg.APIKey.Reveal(), tc.base, tc.mdl, tc.key)
			}
		})
	}
}

func TestFlagsStream(t *testing.T) {
	cases := []struct {
		name string
		args []string
		env  map[string]string
		file string // as cmd/corral sets a value from its --config file: through the flag's Value
		want bool
	}{
		{"off by default", nil, nil, "", false},
		{"flag", []string{"--openai-stream"}, nil, "", true},
		{"CORRAL_ env", nil, map[string]string{"CORRAL_OPENAI_STREAM": "true"}, "", true},
		{"OPENAI_ env", nil, map[string]string{"OPENAI_STREAM": "1"}, "", true},
		{"CORRAL_ env beats OPENAI_ env", nil, map[string]string{"CORRAL_OPENAI_STREAM": "false", "OPENAI_STREAM": "true"}, "", false},
		{"flag false beats env true", []string{"--openai-stream=false"}, map[string]string{"CORRAL_OPENAI_STREAM": "true", "OPENAI_STREAM": "true"}, "", false},
		{"flag true beats env false", []string{"--openai-stream=true"}, map[string]string{"CORRAL_OPENAI_STREAM": "false"}, "", true},
		{"empty values count as unset", nil, map[string]string{"CORRAL_OPENAI_STREAM": " ", "OPENAI_STREAM": "TRUE"}, "", true},
		{"config file", nil, nil, "true", true},
		{"env beats config file", nil, map[string]string{"CORRAL_OPENAI_STREAM": "false"}, "true", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fs, resolve := parseModelFlags(t, tc.args, tc.env)
			if tc.file != "" {
				if err := fs.Lookup("openai-stream").Value.Set(tc.file); err != nil {
					t.Fatal(err)
				}
			}
			cfg, err := resolve()
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Stream != tc.want {
				t.Errorf("Stream = %v, want %v", cfg.Stream, tc.want)
			}
		})
	}
}

func TestFlagsStreamNotABoolean(t *testing.T) {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	resolve := model.Flags(fs, func(k string) (string, bool) {
		return map[string]string{"CORRAL_OPENAI_STREAM": "yes please"}[k], k == "CORRAL_OPENAI_STREAM"
	})
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	_, err := resolve()
	checkErr(t, err, nil, `CORRAL_OPENAI_STREAM="yes please"`, "true or false")
}

// TestConfigShowsStream checks that a Config's text and log say whether it streams.
func TestConfigShowsStream(t *testing.T) {
	cfg := model.Config{BaseURL: "http://127.0.0.1:11434/v1", Model: "qwen2.5vl", APIKey: model.NewSecret(testKey), Stream: true}
	if s := cfg.String(); !strings.Contains(s, "stream true") || strings.Contains(s, testKey) {
		t.Errorf("String() = %s", s)
	}
	logs := &logtest.Buffer{}
	slog.New(slog.NewJSONHandler(logs, nil)).Info("model", "cfg", cfg)
	if s := logs.String(); !strings.Contains(s, `"stream":true`) || strings.Contains(s, testKey) {
		t.Errorf("log = %s", s)
	}
}

// TestFlagsNoKeyArgument checks that there is no way to put the key on a command line.
func TestFlagsNoKeyArgument(t *testing.T) {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	model.Flags(fs, func(string) (string, bool) { return "", false })
	fs.VisitAll(func(f *flag.Flag) {
		if f.Name != "openai-base-url" && f.Name != "openai-model" && f.Name != "openai-api-key-file" && f.Name != "openai-stream" {
			t.Errorf("unexpected flag --%s", f.Name)
		}
	})
	if err := fs.Parse([]string{"--openai-api-key", "sk-x"}); err == nil {
		t.Error("--openai-api-key was accepted")
	}
}

func TestFlagsKeyFileErrors(t *testing.T) {
	for file, says := range map[string]string{writeKeyFile(t, "\n"): "is empty", filepath.Join(t.TempDir(), "missing"): "no such file"} {
		_, resolve := parseModelFlags(t, []string{"--openai-api-key-file", file}, map[string]string{"OPENAI_MODEL": "m", "OPENAI_API_KEY": "sk-env"})
		_, err := resolve()
		checkErr(t, err, nil, "--openai-api-key-file", says)
	}
}

// TestKeyOnlyFromFile runs a whole call with the key given only through a file.
func TestKeyOnlyFromFile(t *testing.T) {
	srv := sim(t, modelsim.Say("authorised"))
	keyFile := writeKeyFile(t, testKey+"\r\n")
	c := flagsClient(t, []string{"--openai-base-url", srv.BaseURL(), "--openai-model", "m", "--openai-api-key-file", keyFile}, nil)
	resp, err := c.Chat(t.Context(), model.Request{Messages: user("x")})
	if err != nil || resp.Text != "authorised" {
		t.Fatalf("Chat = %+v, %v", resp, err)
	}
	if got := srv.Requests()[0].Authorization; got != "Bearer "+testKey {
		t.Errorf("Authorization = %q", got)
	}
}

// A server or a key meant for Corral without a model is refused when the flags are resolved,
// so --check-config and the start refuse it, naming what is set and what is missing.
func TestFlagsRefuseAServerWithoutAModel(t *testing.T) {
	keyFile := writeKeyFile(t, "sk-file\n")
	cases := []struct {
		name string
		args []string
		env  map[string]string
		says string // "": no error
	}{
		{"base URL and key", nil, map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "OPENAI_API_KEY": "sk-x"},
			"OPENAI_BASE_URL and OPENAI_API_KEY are set, but no model: set OPENAI_MODEL or --openai-model to the model's name at http://127.0.0.1:9/v1"},
		{"base URL flag", []string{"--openai-base-url", "http://u:pw@127.0.0.1:9/v1"}, nil,
			"--openai-base-url is set, but no model: set OPENAI_MODEL or --openai-model to the model's name at http://REDACTED@127.0.0.1:9/v1"},
		{"CORRAL_ base URL", nil, map[string]string{"CORRAL_OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}, "CORRAL_OPENAI_BASE_URL is set, but no model"},
		{"key file", []string{"--openai-api-key-file", keyFile}, map[string]string{"OPENAI_API_KEY": "sk-x"},
			"--openai-api-key-file is set, but no model: set OPENAI_MODEL or --openai-model to the model's name at " + model.DefaultBaseURL},
		{"CORRAL_ key", nil, map[string]string{"CORRAL_OPENAI_API_KEY": "sk-x"}, "CORRAL_OPENAI_API_KEY is set, but no model"},
		{"OPENAI_API_KEY alone is no configuration", nil, map[string]string{"OPENAI_API_KEY": "sk-x"}, ""},
		{"nor is a malformed one", nil, map[string]string{"OPENAI_API_KEY": "sk-x sk-y\nsk-z"}, ""},
		{"nothing", nil, nil, ""},
		{"a whole configuration", nil, map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "OPENAI_MODEL": "m"}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, resolve := parseModelFlags(t, tc.args, tc.env)
			_, err := resolve()
			switch {
			case tc.says == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.says != "" && (err == nil || !strings.Contains(err.Error(), tc.says)):
				t.Errorf("error %v, want it to say %q", err, tc.says)
			case err != nil && (strings.Contains(err.Error(), "sk-x") || strings.Contains(err.Error(), "pw@")):
				t.Errorf("the error shows a secret: %v", err)
			}
		})
	}
}

// parseModelFlags defines the model's flags on a new flag set, reading env as the
// environment, parses args and returns the set and its resolver.
func parseModelFlags(t *testing.T, args []string, env map[string]string) (*flag.FlagSet, func() (model.Config, error)) {
	t.Helper()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	resolve := model.Flags(fs, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return fs, resolve
}

// flagsClient is the model client of the config the model's flags resolve to.
func flagsClient(t *testing.T, args []string, env map[string]string) *model.Client {
	t.Helper()
	_, resolve := parseModelFlags(t, args, env)
	cfg, err := resolve()
	if err != nil {
		t.Fatal(err)
	}
	c, err := model.NewClient(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// writeKeyFile writes content to a new key file and returns its path.
func writeKeyFile(t *testing.T, content string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// A model flag given a blank value is refused, naming the flag: `--openai-model ' '` passed
// and ran without agent tasks, a blank --openai-base-url fell back to the default, and a
// blank --openai-api-key-file failed to open a file named " ". A blank variable in the
// environment still counts as unset, and a config file's value goes through the same check.
func TestFlagsRefuseABlankValue(t *testing.T) {
	env := map[string]string{"OPENAI_MODEL": "env-model", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"--openai-model", " "}, `--openai-model " " is blank: give the model's name`},
		{[]string{"--openai-model", ""}, `--openai-model "" is blank`},
		{[]string{"--openai-model=\t"}, `--openai-model "\t" is blank`},
		{[]string{"--openai-base-url", "  "}, `--openai-base-url "  " is blank: give the API root`},
		{[]string{"--openai-api-key-file", " "}, `--openai-api-key-file " " is blank: give the file holding the API key`},
	} {
		_, resolve := parseModelFlags(t, tc.args, env)
		_, err := resolve()
		if err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%q: error %v, want it to say %s", tc.args, err, tc.says)
		}
	}

	fs, resolve := parseModelFlags(t, nil, env)
	if err := fs.Lookup("openai-model").Value.Set(" "); err != nil { // as from a --config file
		t.Fatal(err)
	}
	if _, err := resolve(); err == nil || !strings.Contains(err.Error(), `--openai-model " " is blank`) {
		t.Errorf("a blank model from a config file: error %v", err)
	}

	_, resolve = parseModelFlags(t, nil, map[string]string{"OPENAI_MODEL": " ", "OPENAI_BASE_URL": " "})
	if cfg, err := resolve(); err != nil || cfg.Enabled() {
		t.Errorf("blank variables: %v, %v; want them unset", cfg, err)
	}
}
