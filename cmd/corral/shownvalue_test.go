package main

import (
	"strings"
	"testing"
)

// A NATS URL from the environment is shown without its password or token, also when it does
// not parse, as broker shows URLs: one format.
func TestShownValueHidesPasswords(t *testing.T) {
	for v, want := range map[string]string{
		"nats://admin:hunter2pw@[bad":             "nats://admin:REDACTED@[bad",
		"nats://admin:hunter2pw@h:4222":           "nats://admin:REDACTED@h:4222",
		"nats://a@h,nats://admin:hunter2pw@[bad":  "nats://REDACTED@h,nats://admin:REDACTED@[bad",
		"nats://hunter2pw@h:4222, nats://h2:4222": "nats://REDACTED@h:4222, nats://h2:4222",
		"http://127.0.0.1:8420/mcp":               "http://127.0.0.1:8420/mcp",
	} {
		got := shownValue(v)
		if strings.Contains(got, "hunter2pw") {
			t.Errorf("shownValue(%q) = %q: the password shows", v, got)
		}
		if got != want {
			t.Errorf("shownValue(%q) = %q, want %q", v, got, want)
		}
	}
}
