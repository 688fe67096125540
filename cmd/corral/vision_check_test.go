//go:build vision

package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// corral vision --check-config reads its NATS settings as the start would, as the gateway's and
// node's do (TestCheckConfigResolvesNATSSettings): a context file that is not there is refused.
func TestVisionCheckConfigResolvesNATSSettings(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.json")
	err := runVision(t.Context(), []string{"--metrics", "", "--nats-context", missing, "--check-config"})
	if err == nil || !strings.Contains(err.Error(), "--nats-context: NATS context "+missing) {
		t.Fatalf("corral vision --check-config with a missing context: %v", err)
	}
}
