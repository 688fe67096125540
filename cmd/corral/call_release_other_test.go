package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// release_device by serial from a second corral call of the principal that acquired the
// device (each process is a caller of its own) said "no lease of X … pass the handle". It
// says another session of the principal holds it, and once what to pass: the lease handle.
func TestCallReleaseOfAnotherCallsDeviceSaysWhoseItIs(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	serial := f.Devices()[0].Serial
	gw := f.Gateway().MCPURL
	var err error
	said := captureOutput(t, func() {
		err = runCall(t.Context(), []string{"--gateway", gw, "--log-level", "error", "acquire_device", `{"serial":"` + serial + `"}`})
	})
	require.NoError(t, err, said)

	said = captureOutput(t, func() {
		err = runCall(t.Context(), []string{"--gateway", gw, "--log-level", "error", "release_device", `{"serial":"` + serial + `"}`})
	})
	require.Error(t, err, said)
	msg := err.Error()
	assert.Contains(t, msg, "lease is required: "+serial+" is held by ")
	assert.Contains(t, msg, "That is another session of ")
	assert.Contains(t, msg, "if its lease is yours, pass its handle as lease (corral call: export CORRAL_LEASE=<handle>).")
	assert.NotContains(t, msg, "no lease of")
	assert.Equal(t, 1, strings.Count(msg, "pass its handle")+strings.Count(msg, "pass the handle"), msg)
}
