package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// corral call warns, once and without the values, when its JSON on the command line (which ps
// shows) holds a lease handle or a secret argument, and says how to give them instead; the
// same JSON on standard input, and a command line without secrets, get no warning.
func TestCallWarnsOfSecretsOnTheCommandLine(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	serial := f.Devices()[0].Serial
	var held struct {
		Lease struct {
			Handle string `json:"handle"`
		} `json:"lease"`
	}
	farmtest.Structured(t, farmtest.MustCall(t, f.Client("holder"), "acquire_device", map[string]any{"serial": serial}), &held)
	handle := held.Lease.Handle
	require.NotEmpty(t, handle)
	const password = "argv-SECRET-pw"
	tap := `{"serial":"` + serial + `","lease":"` + handle + `","x":0.5,"y":0.5}`
	call := func(args ...string) (string, int) {
		var code int
		said := captureOutput(t, func() {
			code = realMain(append([]string{"call", "--gateway", f.Gateway().MCPURL, "--log-level", "error"}, args...))
		})
		return said, code
	}

	said, code := call("tap_xy", tap)
	assert.Equal(t, 0, code, said)
	assert.Equal(t, 1, strings.Count(said, "warning:"), "warned once: %s", said)
	assert.Contains(t, said, `the arguments on the command line hold a lease handle in "lease",`)
	assert.Contains(t, said, "(corral call tap_xy - < args.json), and the lease in $CORRAL_LEASE")
	assert.Contains(t, said, "$CORRAL_LEASE")
	assert.NotContains(t, said, handle)

	said, _ = call("web_login_none_ui", `{"serial":"`+serial+`","packageName":"https://shop.example/api/login","password":"`+password+`"}`)
	assert.Contains(t, said, `the arguments on the command line hold a secret in "password",`)
	assert.NotContains(t, said, "$CORRAL_LEASE", "no lease was given")
	assert.NotContains(t, said, password)

	said, _ = call("tap_xy", `{"serial":"`+serial+`","x":0.5,"y":0.5}`)
	assert.NotContains(t, said, "warning:", "no secret on the command line")

	args := filepath.Join(t.TempDir(), "args.json")
	require.NoError(t, os.WriteFile(args, []byte(tap), 0o600))
	in, err := os.Open(args)
	require.NoError(t, err)
	t.Cleanup(func() { _ = in.Close() })
	stdin := os.Stdin
	os.Stdin = in
	t.Cleanup(func() { os.Stdin = stdin })
	said, code = call("tap_xy", "-")
	assert.Equal(t, 0, code, said)
	assert.NotContains(t, said, "warning:", "the arguments came on standard input")
}
