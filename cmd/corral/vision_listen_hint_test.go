//go:build vision

package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// corral vision with its --metrics address taken names the flag to change, as corral node does.
func TestVisionMetricsAddressInUseNamesTheFlag(t *testing.T) {
	natsURL, taken := natsAndATakenPort(t)
	err := runVision(t.Context(), []string{"--nats-url", natsURL, "--metrics", taken, "--parallel", "1", "--log-level", "error"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "address already in use")
	assert.Contains(t, err.Error(), "another corral vision running? choose another address with --metrics")
}
