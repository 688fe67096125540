package main

import "testing"

// noNATSSettings clears the NATS settings a developer's shell may hold (NATS_CONTEXT,
// NATS_URL, a selected natscli context), so that a test sees only the ones it gives.
func noNATSSettings(t *testing.T) {
	t.Helper()
	t.Setenv("NATS_CONTEXT", "")
	t.Setenv("NATS_URL", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // no natscli context selected
}

// commandNamed is corral's command name.
func commandNamed(t *testing.T, name string) command {
	t.Helper()
	for _, c := range commands() {
		if c.name == name {
			return c
		}
	}
	t.Fatalf("corral %s is no command", name)
	return command{}
}
