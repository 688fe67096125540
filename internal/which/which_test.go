package which

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The variable wins over the names; among the names the first on PATH wins; none found is
// notFound; a variable naming a missing program is an error, not a fall back to the names.
func TestFirst(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"second", "third", "named"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, n), []byte("#!/bin/sh\n"), 0o755))
	}
	t.Setenv("PATH", dir)
	notFound := errors.New("none")

	t.Setenv("TEST_WHICH", "")
	got, err := First("TEST_WHICH", []string{"first", "second", "third"}, notFound)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "second"), got)

	_, err = First("TEST_WHICH", []string{"first"}, notFound)
	assert.ErrorIs(t, err, notFound)

	t.Setenv("TEST_WHICH", "named")
	got, err = First("TEST_WHICH", []string{"second"}, notFound)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "named"), got)

	t.Setenv("TEST_WHICH", "missing")
	_, err = First("TEST_WHICH", []string{"second"}, notFound)
	assert.Error(t, err)
	assert.NotErrorIs(t, err, notFound)
}
