package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A flag of export given before it (corral tasks --out F export T) is refused with exit 2 saying
// where it goes, the command rebuilt. Before, the history's flag set read --out and refused it
// with a did-you-mean to --outcome.
func TestTasksExportFlagBeforeExportExit2(t *testing.T) {
	noNATSSettings(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"tasks", "--out", "F", "export", "T"}, "put --out after export: corral tasks export --out F T"},
		{[]string{"tasks", "--out=F", "--timeout", "5s", "export", "T"}, "put --out, --timeout after export: corral tasks export --out=F --timeout 5s T"},
		{[]string{"tasks", "--limit", "3", "--out", "F", "export", "T"},
			"it has no --limit ('corral tasks export -h' lists its flags); put --out after export: corral tasks export --out F T"},
		{[]string{"tasks", "--nats-url", "nats://u:hunter2@127.0.0.1:1,nats://127.0.0.1:2", "export", "T"},
			"corral tasks export --nats-url nats://u:xxxxx@127.0.0.1:1,nats://127.0.0.1:2 T"},
	} {
		var code int
		out := captureOutput(t, func() { code = realMain(c.args) })
		assert.Equal(t, 2, code, "corral %s: %s", strings.Join(c.args, " "), out)
		assert.Contains(t, out, c.want, "corral %s", strings.Join(c.args, " "))
		assert.NotContains(t, out, "did you mean", "corral %s", strings.Join(c.args, " "))
		assert.NotContains(t, out, "hunter2")
	}
}
