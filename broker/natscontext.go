package broker

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// NATSContext is a natscli context file (`nats --context FILE.json`, or NATS_CONTEXT): the
// fields Corral reads and writes of natscli's format, so that one file serves `nats` and
// `corral` alike.
type NATSContext struct {
	Description string `json:"description,omitempty"`
	URL         string `json:"url,omitempty"`
	User        string `json:"user,omitempty"`
	Password    string `json:"password,omitempty"`
	Creds       string `json:"creds,omitempty"`
	NKey        string `json:"nkey,omitempty"`
	Cert        string `json:"cert,omitempty"`
	Key         string `json:"key,omitempty"`
	CA          string `json:"ca,omitempty"`
	InboxPrefix string `json:"inbox_prefix,omitempty"`
}

// EnvNATSContext is the natscli context file that NATS_CONTEXT names, as natscli reads it: a
// path when it ends in .json, else the name of a context of natscli's own (NAME.json in its
// configuration directory); "" when NATS_CONTEXT is not set. The file need not exist:
// ReadNATSContext then says it is missing.
func EnvNATSContext() string { return NATSContextFile(os.Getenv("NATS_CONTEXT")) }

// NATSContextFile is the file of a context given as natscli takes one (NATS_CONTEXT, or
// --nats-context): a path when it ends in .json or has a directory, else the name of a
// context of natscli's own, NAME.json in its configuration directory.
func NATSContextFile(name string) string {
	if name == "" || strings.HasSuffix(name, ".json") || strings.ContainsAny(name, `/\`) {
		return name
	}
	return filepath.Join(natscliDir(), "context", name+".json")
}

// SelectedNATSContext is the file of the context selected with `nats context select`, "" when
// none is.
func SelectedNATSContext() string {
	b, err := os.ReadFile(filepath.Join(natscliDir(), "context.txt"))
	name := strings.TrimSpace(string(b))
	if err != nil || name == "" || strings.ContainsAny(name, `/\`) {
		return ""
	}
	return filepath.Join(natscliDir(), "context", name+".json")
}

// natscliDir is natscli's configuration directory: $XDG_CONFIG_HOME/nats, else ~/.config/nats.
func natscliDir() string {
	if d := os.Getenv("XDG_CONFIG_HOME"); d != "" {
		return filepath.Join(d, "nats")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".config", "nats")
}

// ReadNATSContext reads a natscli context file.
func ReadNATSContext(path string) (NATSContext, error) {
	var c NATSContext
	b, err := os.ReadFile(path)
	if err != nil {
		return c, fmt.Errorf("NATS context %s: %w (give the path of a natscli context .json file)", path, err)
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("NATS context %s is not a natscli context (JSON): %w", path, err)
	}
	return c, nil
}

// WriteNATSContext writes a natscli context file readable by its owner only (it may hold a
// password), replacing it atomically.
func WriteNATSContext(path string, c NATSContext) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return writeSecretFile(path, append(b, '\n'))
}

// writeSecretFile writes data to path with mode 0600 through a temporary file in the same
// directory, so that no reader ever sees half a file and the secret is never world-readable.
func writeSecretFile(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() { _ = os.Remove(tmp.Name()) }()
	if err := tmp.Chmod(0o600); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
