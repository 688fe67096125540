package model

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Flags defines --openai-base-url, --openai-model, --openai-api-key-file and --openai-stream on
// fs and returns a function that, once fs is parsed, resolves the Config. Each setting comes
// from its flag, else CORRAL_OPENAI_*, else OPENAI_* (lookupEnv is os.LookupEnv outside tests;
// empty values count as unset). The key is read from the file (trailing newline trimmed) or the
// environment, never from an argument: a command line shows in every process listing. Once
// read, the key's variables are removed from the process's environment (takeKeyFromEnv).
// KeySource names the key's file or variable, for Config.Validate, which refuses a key that
// does not fit an HTTP header: only a config that names a model is checked, so a malformed
// OPENAI_API_KEY a shell holds for other tools stops nothing.
func Flags(fs *flag.FlagSet, lookupEnv func(string) (string, bool)) func() (Config, error) {
	baseURL := fs.String("openai-base-url", "", "OpenAI-compatible API root (default: $CORRAL_OPENAI_BASE_URL, $OPENAI_BASE_URL, else "+DefaultBaseURL+")")
	model := fs.String("openai-model", "", "model for agent tasks, e.g. gpt-4o or qwen2.5vl (default: $CORRAL_OPENAI_MODEL, $OPENAI_MODEL)")
	keyFile := fs.String("openai-api-key-file", "", "file holding the API key (default: the key in $CORRAL_OPENAI_API_KEY, $OPENAI_API_KEY)")
	stream := fs.Bool("openai-stream", false, "stream the model's answers, so agent tasks report its text as it writes; "+
		"leave off for a server that cannot stream tool calls (default: $CORRAL_OPENAI_STREAM, $OPENAI_STREAM, else false)")
	envKey := sync.OnceValue(func() keyEnv { return takeKeyFromEnv(lookupEnv) })
	return func() (Config, error) {
		if err := blankFlags(fs); err != nil {
			return Config{}, err
		}
		ek := envKey()
		env := func(names ...string) string {
			_, v := firstEnv(lookupEnv, names...)
			return v
		}
		c := Config{
			BaseURL: first(*baseURL, env("CORRAL_OPENAI_BASE_URL", "OPENAI_BASE_URL"), DefaultBaseURL),
			Model:   first(*model, env("CORRAL_OPENAI_MODEL", "OPENAI_MODEL")),
		}
		if c.Model == "" {
			if err := noModel(*baseURL, *keyFile, ek, lookupEnv); err != nil {
				return Config{}, err
			}
		}
		if *keyFile != "" {
			key, err := ReadKeyFile(*keyFile)
			if err != nil {
				return Config{}, err
			}
			c.APIKey, c.KeySource = key, KeyFromFile+" "+*keyFile
		} else if ek.key != "" {
			c.APIKey, c.KeySource = NewSecret(ek.key), ek.name
		}
		var err error
		if c.Stream, err = streamSetting(fs, *stream, lookupEnv); err != nil {
			return Config{}, err
		}
		return c, nil
	}
}

// blankFlags refuses a model flag given a blank value, white space only or "" on the command
// line: `--openai-model "$MODEL"` with MODEL unset or " " passed --check-config and then
// fell back to the environment or ran without agent tasks, as if the flag were not there.
// A blank environment variable still counts as unset (shells export empty ones).
func blankFlags(fs *flag.FlagSet) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var errs []error
	for _, f := range []struct{ name, instead string }{
		{"openai-base-url", "give the API root, e.g. http://127.0.0.1:11434/v1, or leave the flag out for " +
			"$CORRAL_OPENAI_BASE_URL, $OPENAI_BASE_URL, else " + DefaultBaseURL},
		{"openai-model", "give the model's name, e.g. gpt-4o or qwen2.5vl, or leave the flag out " +
			"($CORRAL_OPENAI_MODEL, $OPENAI_MODEL; none: no agent tasks)"},
		{"openai-api-key-file", "give the file holding the API key, or leave the flag out " +
			"(the key in $CORRAL_OPENAI_API_KEY, $OPENAI_API_KEY; none: no key)"},
	} {
		v := fs.Lookup(f.name).Value.String()
		if strings.TrimSpace(v) == "" && (v != "" || given[f.name]) {
			errs = append(errs, fmt.Errorf("--%s %q is blank: %s", f.name, v, f.instead))
		}
	}
	return errors.Join(errs...)
}

// takeKeyFromEnv reads the key from CORRAL_OPENAI_API_KEY, else OPENAI_API_KEY, and then
// removes both from the process's environment: every child process (the adb server the node
// starts, a driver's tools) would otherwise inherit the key, readable in its
// /proc/PID/environ. It runs once per Flags, so a second resolve still has the key. Only
// variables that lookupEnv read from the process's own environment are removed (tests pass
// their own lookup). Nothing else in Corral reads these variables.
func takeKeyFromEnv(lookupEnv func(string) (string, bool)) keyEnv {
	var ek keyEnv
	ek.name, ek.key = firstEnv(lookupEnv, KeyFromCorralEnv, KeyFromEnv)
	for _, n := range []string{KeyFromCorralEnv, KeyFromEnv} {
		v, ok := lookupEnv(n)
		if name, _ := firstEnv(lookupEnv, n); name != "" {
			ek.set = append(ek.set, n)
		}
		if real, inEnv := os.LookupEnv(n); ok && inEnv && real == v {
			_ = os.Unsetenv(n)
		}
	}
	return ek
}

// keyEnv is what takeKeyFromEnv found: the key and the variable it came from, and which of
// the key's variables were set.
type keyEnv struct {
	name, key string
	set       []string
}

func (ek keyEnv) has(name string) bool { return slices.Contains(ek.set, name) }

// noModel refuses a configuration that names a server but no model: agent tasks would
// only fail at run time. OPENAI_API_KEY alone is no configuration (shells hold it for other
// tools), so it is refused only beside a base URL or a key meant for Corral.
func noModel(baseFlag, keyFile string, ek keyEnv, lookupEnv func(string) (string, bool)) error {
	var set []string
	base := strings.TrimSpace(baseFlag)
	if base != "" {
		set = append(set, "--openai-base-url")
	} else if name, v := firstEnv(lookupEnv, "CORRAL_OPENAI_BASE_URL", "OPENAI_BASE_URL"); name != "" {
		set, base = append(set, name), v
	}
	if keyFile != "" {
		set = append(set, "--openai-api-key-file")
	}
	if ek.has(KeyFromCorralEnv) {
		set = append(set, KeyFromCorralEnv)
	}
	if len(set) == 0 {
		return nil
	}
	if ek.has(KeyFromEnv) && keyFile == "" {
		set = append(set, KeyFromEnv)
	}
	if base == "" {
		base = DefaultBaseURL
	}
	verb := "is"
	if len(set) > 1 {
		verb = "are"
	}
	return fmt.Errorf("agent tasks' model: %s %s set, but no model: set OPENAI_MODEL or --openai-model to the model's name at %s "+
		"(e.g. gpt-4o, or qwen2.5vl for Ollama; GET %s/models lists them), or unset %s to run without agent tasks",
		strings.Join(set, " and "), verb, redactURL(strings.TrimRight(base, "/")), redactURL(strings.TrimRight(base, "/")), strings.Join(set, " and "))
}

// streamSetting resolves --openai-stream. A bool flag has no "empty", so whether it was given
// is asked of fs: false on the command line beats true in the environment. Without the flag or
// the environment, the flag's value stands (the default, or what a config file set).
func streamSetting(fs *flag.FlagSet, flagValue bool, lookupEnv func(string) (string, bool)) (bool, error) {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "openai-stream" })
	if given {
		return flagValue, nil
	}
	name, v := firstEnv(lookupEnv, "CORRAL_OPENAI_STREAM", "OPENAI_STREAM")
	if v == "" {
		return flagValue, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("%s=%q is not a boolean: set it to true or false, or unset it", name, v)
	}
	return b, nil
}

// firstEnv returns the first of names set to something other than white space, and its value
// trimmed.
func firstEnv(lookupEnv func(string) (string, bool), names ...string) (name, value string) {
	for _, n := range names {
		if v, ok := lookupEnv(n); ok && strings.TrimSpace(v) != "" {
			return n, strings.TrimSpace(v)
		}
	}
	return "", ""
}

// ReadKeyFile reads an API key from a file, as mounted from a Kubernetes secret: surrounding
// whitespace (the trailing newline of echo or an editor) is not part of the key. What is
// inside is checked with the rest of the config (Config.Validate, checkKey).
func ReadKeyFile(path string) (Secret, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Secret{}, fmt.Errorf("--openai-api-key-file: %w: give the file holding the API key (as mounted from a secret), "+
			"or leave the flag out for the key in $CORRAL_OPENAI_API_KEY or $OPENAI_API_KEY", err)
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
