package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// docExportFlow is the command block of docs/agent.md's "From an agent's run to a test": each
// ./bin/corral command's arguments, its trailing comment left out, single quotes as sh reads them.
func docExportFlow(t *testing.T) [][]string {
	t.Helper()
	doc, err := os.ReadFile("../../docs/agent.md")
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(doc), "## From an agent's run to a test\n")
	require.True(t, ok, "docs/agent.md has a section From an agent's run to a test")
	_, block, ok := strings.Cut(section, "```sh\n")
	require.True(t, ok, "the section has a sh block")
	block, _, _ = strings.Cut(block, "```")
	var cmds [][]string
	for line := range strings.Lines(block) {
		rest, ok := strings.CutPrefix(line, "./bin/corral ")
		if !ok {
			continue
		}
		cmds = append(cmds, shellWords(t, rest))
	}
	require.NotEmpty(t, cmds)
	return cmds
}

// shellWords splits a command line as sh does for what the docs write: words, '…' quoted, and
// a # comment that ends the line.
func shellWords(t *testing.T, line string) []string {
	var words []string
	var w strings.Builder
	inWord, quoted := false, false
	for _, r := range strings.TrimSpace(line) {
		switch {
		case quoted && r == '\'':
			quoted = false
		case quoted:
			w.WriteRune(r)
		case r == '\'':
			quoted, inWord = true, true
		case r == '#' && !inWord:
			return words
		case r == ' ' || r == '\t':
			if inWord {
				words, inWord = append(words, w.String()), false
				w.Reset()
			}
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	require.False(t, quoted, "an unclosed quote in %q", line)
	if inWord {
		words = append(words, w.String())
	}
	return words
}

// docFarm is what a doc's commands name that a test farm names otherwise.
type docFarm struct {
	serial, gateway, taskID, dir string
}

var (
	docTaskID  = regexp.MustCompile(`^t_[a-z0-9]+$`)
	docGateway = "http://127.0.0.1:8420/mcp"
)

// runDocCommand runs one of the doc's commands against the test's farm: its device, gateway,
// task and a temporary directory for the files it writes. `corral call` goes to the gateway,
// as it would find make run's NATS from ./data.
func runDocCommand(ctx context.Context, t *testing.T, f docFarm, args []string) error {
	t.Helper()
	args = append([]string(nil), args...)
	for i, a := range args {
		a = strings.ReplaceAll(a, `"sim-local-01"`, `"`+f.serial+`"`)
		switch {
		case a == docGateway:
			a = f.gateway
		case docTaskID.MatchString(a):
			a = f.taskID
		case strings.HasSuffix(a, ".yaml") || strings.HasSuffix(a, ".xml"):
			a = filepath.Join(f.dir, a)
		}
		args[i] = a
	}
	t.Logf("corral %s", strings.Join(args, " "))
	switch {
	case len(args) > 1 && args[0] == "tasks":
		return runTasksCommand(ctx, args[1:])
	case args[0] == "call":
		return runCall(ctx, append([]string{"--gateway", f.gateway}, args[1:]...))
	case args[0] == "run":
		return runRun(ctx, args[1:])
	}
	t.Fatalf("the doc runs corral %s, which this test does not know", args[0])
	return nil
}
