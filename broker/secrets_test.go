package broker

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A users.json edited by hand (or cut short) is refused as damaged, with what to do, and never
// crashes the start or hands out a context NATS would refuse: null crashed `corral up` with a
// panic (a nil map), and an empty password was written into a context no login could use.
func TestDamagedSecretsAreRefusedByName(t *testing.T) {
	for _, c := range []struct{ name, file, why string }{
		{"null", "null", "no users in it"},
		{"empty password", `{"admin": ""}`, `user "admin" has an empty password`},
		{"not JSON", `{"admin": "x"`, "unexpected end of JSON input"},
		{"wrong type", `["admin"]`, "cannot unmarshal array"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, secretsFile), []byte(c.file), 0o600))
			_, err := OpenSecrets(dir)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "is damaged")
			assert.Contains(t, err.Error(), c.why)
			assert.Contains(t, err.Error(), "remove the directory to make new credentials")
		})
	}

	// A sound file keeps its passwords.
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, secretsFile), []byte(`{"admin": "pw"}`), 0o600))
	s, err := OpenSecrets(dir)
	require.NoError(t, err)
	pw, err := s.Password("admin")
	require.NoError(t, err)
	assert.Equal(t, "pw", pw)
}
