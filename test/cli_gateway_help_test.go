package test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// corral tasks -h and corral drain -h say what each does with --gateway (refuses it, and what
// to use), not what release does; and each does as its help says.
func TestOperatorActionsGatewayHelp(t *testing.T) {
	for _, tc := range []struct {
		args []string
		help []string // in the -gateway line of -h
	}{
		{[]string{"tasks"}, []string{"refused", "NATS", "tasks export TASK_ID --gateway URL", "get_task_result"}},
		{[]string{"drain", "n1"}, []string{"refused", "NATS", "no gateway tool drains a node"}},
	} {
		cmd := tc.args[0]
		out, _, _ := corralRun(t, t.TempDir(), nil, cmd, "-h")
		_, after, ok := strings.Cut(out, "  -gateway string\n")
		require.True(t, ok, "corral %s -h has no -gateway:\n%s", cmd, out)
		line, _, _ := strings.Cut(after, "\n")
		assert.NotContains(t, line, "release", "corral %s -h: -gateway %s", cmd, line)
		for _, want := range tc.help {
			assert.Contains(t, line, want, "corral %s -h: -gateway", cmd)
		}
		out, took, err := corralRun(t, t.TempDir(), nil, append(tc.args, "--gateway", "http://127.0.0.1:1/mcp")...)
		require.Error(t, err, "corral %s --gateway: %s", cmd, out)
		assert.Contains(t, out, "talks to NATS directly", "corral %s --gateway", cmd)
		assert.Less(t, took, slow, "corral %s --gateway is refused at once", cmd)
	}
}
