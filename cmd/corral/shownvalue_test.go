package main

import (
	"strings"
	"testing"
)

// A NATS URL from the environment is shown without its password, also when it does not parse.
func TestShownValueHidesPasswords(t *testing.T) {
	for _, v := range []string{"nats://admin:hunter2pw@[bad", "nats://admin:hunter2pw@h:4222", "nats://a@h,nats://admin:hunter2pw@[bad"} {
		if got := shownValue(v); strings.Contains(got, "hunter2pw") {
			t.Errorf("shownValue(%q) = %q: the password shows", v, got)
		}
	}
}
