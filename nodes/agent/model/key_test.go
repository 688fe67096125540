package model_test

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/corral-farm/corral/nodes/agent/model"
	"github.com/corral-farm/corral/nodes/agent/model/modelsim"
)

// A key that cannot go in an Authorization header (two lines, white space or a control
// character inside) is refused when the config is checked (--check-config, NewClient),
// naming where it came from and never showing it: Go's HTTP client would refuse every
// request without sending it.
func TestConfigRefusesAKeyThatIsNotOneWord(t *testing.T) {
	cases := []struct {
		name, key string
		says      string
	}{
		{"two lines", "sk-SECRETA\nsk-SECRETB\n", "holds more than one line"},
		{"CRLF lines", "sk-SECRETA\r\nsk-SECRETB\r\n", "holds more than one line"},
		{"a space inside", "sk-SECRET A", "holds white space inside the key (at character 10)"},
		{"a tab inside", "Bearer\tsk-SECRET", "holds white space"},
		{"a control character", "sk-SECRET\x00", "holds a control character"},
		{"a non-breaking space", "sk-SECRET\u00a0A", "holds a character that is not plain ASCII"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			file := writeKeyFile(t, tc.key)
			srv := sim(t)
			base := map[string]string{"OPENAI_BASE_URL": srv.BaseURL(), "OPENAI_MODEL": "m"}
			err := resolveAndCheck(t, []string{"--openai-api-key-file", file}, base)
			checkErr(t, err, nil, "--openai-api-key-file "+file+" "+tc.says)
			noSecret(t, err.Error())

			for _, name := range []string{"CORRAL_OPENAI_API_KEY", "OPENAI_API_KEY"} {
				env := map[string]string{name: tc.key}
				for k, v := range base {
					env[k] = v
				}
				err := resolveAndCheck(t, nil, env)
				// The environment's value is trimmed, as a file's is.
				checkErr(t, err, nil, name+" "+strings.TrimSpace(tc.says))
				noSecret(t, err.Error())
			}
			// A key set in code is checked too.
			err = model.Config{BaseURL: srv.BaseURL(), Model: "m", APIKey: model.NewSecret(strings.TrimSpace(tc.key))}.Validate()
			checkErr(t, err, nil, "the API key "+tc.says)
			noSecret(t, err.Error())
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("%d requests sent", n)
			}
		})
	}
}

// resolveAndCheck resolves the model's flags as corral --check-config does, and checks the
// config: the error of either, or of neither. Each resolves as NewClient would then check.
func resolveAndCheck(t *testing.T, args []string, env map[string]string) error {
	t.Helper()
	_, resolve := parseModelFlags(t, args, env)
	cfg, err := resolve()
	if err != nil {
		return err
	}
	if _, nerr := model.NewClient(cfg, nil); nerr == nil {
		t.Error("NewClient took the config")
	}
	return cfg.Validate()
}

// A refused key's hint names where the key sent came from: setting OPENAI_API_KEY changes
// nothing while CORRAL_OPENAI_API_KEY or a key file goes before it.
func TestUnauthorizedNamesTheKeysSource(t *testing.T) {
	srv := modelsim.New().RequireKey("sk-the-right-one")
	t.Cleanup(srv.Close)
	keyFile := writeKeyFile(t, "sk-wrong\n")
	cases := []struct {
		name string
		args []string
		env  map[string]string
		says string
	}{
		{"key file", []string{"--openai-api-key-file", keyFile}, map[string]string{"CORRAL_OPENAI_API_KEY": "sk-wrong", "OPENAI_API_KEY": "sk-wrong"},
			"fix the key in --openai-api-key-file " + keyFile + " (the key sent: the file goes before CORRAL_OPENAI_API_KEY and OPENAI_API_KEY)"},
		{"CORRAL_OPENAI_API_KEY", nil, map[string]string{"CORRAL_OPENAI_API_KEY": "sk-wrong", "OPENAI_API_KEY": "sk-the-right-one"},
			"fix CORRAL_OPENAI_API_KEY (the key sent: it goes before OPENAI_API_KEY"},
		{"OPENAI_API_KEY", nil, map[string]string{"OPENAI_API_KEY": "sk-wrong"}, "fix OPENAI_API_KEY (the key sent)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.env["OPENAI_BASE_URL"], tc.env["OPENAI_MODEL"] = srv.BaseURL(), "m"
			c := flagsClient(t, tc.args, tc.env)
			_, err := c.Chat(t.Context(), model.Request{Messages: user("x")})
			checkErr(t, err, model.ErrUnauthorized, tc.says, "401")
			if strings.Contains(err.Error(), "sk-wrong") {
				t.Errorf("the key shows: %v", err)
			}
		})
	}
}

// Once read, the key's variables leave the process's environment, so that no child process
// (the adb server the node starts) inherits the key; resolving again still gives the key.
func TestFlagsTakeTheKeyOutOfTheEnvironment(t *testing.T) {
	t.Setenv("CORRAL_OPENAI_API_KEY", "sk-corral-ENVSECRET")
	t.Setenv("OPENAI_API_KEY", "sk-openai-ENVSECRET")
	t.Setenv("OPENAI_MODEL", "m")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	resolve := model.Flags(fs, os.LookupEnv)
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	for range 2 { // corral resolves once for --check-config's checks, once to start
		cfg, err := resolve()
		if err != nil {
			t.Fatal(err)
		}
		if cfg.APIKey.Reveal() != "sk-corral-ENVSECRET" || cfg.KeySource != "CORRAL_OPENAI_API_KEY" {
			t.Errorf("key from %q", cfg.KeySource)
		}
		for _, kv := range os.Environ() {
			if strings.Contains(kv, "ENVSECRET") || strings.HasPrefix(kv, "OPENAI_API_KEY=") || strings.HasPrefix(kv, "CORRAL_OPENAI_API_KEY=") {
				t.Errorf("still in the environment: %s", strings.SplitN(kv, "=", 2)[0])
			}
		}
	}
	if os.Getenv("OPENAI_MODEL") != "m" {
		t.Error("a variable that holds no key was removed")
	}
}

// A lookup that is not the process's environment (as in tests) leaves the process's
// variables alone.
func TestFlagsLeaveAnotherEnvironmentAlone(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-real")
	_, resolve := parseModelFlags(t, nil, map[string]string{"OPENAI_API_KEY": "sk-fake", "OPENAI_MODEL": "m"})
	if _, err := resolve(); err != nil {
		t.Fatal(err)
	}
	if os.Getenv("OPENAI_API_KEY") != "sk-real" {
		t.Error("the process's OPENAI_API_KEY was removed")
	}
}
