package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// corral run given two FILEs says that a run takes one, and what to do instead: it printed
// only its usage line, which did not say which word was the mistake.
func TestRunTwoFilesSaysOneFileARun(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.yaml"), filepath.Join(dir, "b.yaml")
	for _, f := range []string{a, b} {
		require.NoError(t, os.WriteFile(f, []byte("- method: home\n"), 0o600))
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", a, a, "--serial", "s"}, `one steps FILE per run (one report), and got "` + a + `" twice: give it once`},
		{[]string{"run", a, b, "--check-config"}, `and got 2 arguments besides the flags ("` + a + `", "` + b + `"): run each file with its own corral run`},
		{[]string{"run", a, "serial", "s"}, "a flag without its dashes is taken as a FILE too"},
	} {
		code, out, errOut := corralMain(t, c.args...)
		assert.Equal(t, 2, code, "%v", c.args)
		assert.Empty(t, out, "%v", c.args)
		assert.Contains(t, errOut, c.want, "%v", c.args)
		assert.Contains(t, errOut, "\nusage: corral run FILE", "%v", c.args)
	}
}
