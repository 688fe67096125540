package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Every command and subcommand's -h starts with its usage line and one sentence saying what it
// does (not the flag package's bare "Usage of corral X"), on standard output; corral help CMD
// prints the same; a flag it does not take is told in two lines, the error and where the flags
// are, not above the whole help.
func TestEveryCommandsHelpSaysWhatItDoes(t *testing.T) {
	for _, c := range commands() {
		names := append([]string{c.name}, subcommandsIn(c)...)
		if c.name == "sim" || c.name == "arm" {
			names = names[1:] // a group: its -h lists its subcommands
		}
		for _, name := range names {
			t.Run(name, func(t *testing.T) {
				words := strings.Fields(name)
				var code int
				var help string
				captureStderr(t, func() { help = captureStdout(t, func() { code = realMain(append(words, "-h")) }) })
				assert.Equal(t, 0, code)
				assert.NotContains(t, help, "Usage of")
				lines := strings.Split(help, "\n")
				assert.True(t, strings.HasPrefix(lines[0], "usage: corral "+name), "the usage line first: %q", lines[0])
				offVision := name == "vision" && inProcessVision == nil // one line: it is not in this corral
				if !offVision && assert.Greater(t, len(lines), 2, help) {
					assert.Empty(t, lines[1])
					what := lines[2]
					assert.Regexp(t, `^[A-Z][^ ]* .*\S`, what, "what corral %s does, as a sentence", name)
				}

				asked := captureOutput(t, func() { code = realMain(append([]string{"help"}, words...)) })
				assert.Equal(t, 0, code)
				assert.Equal(t, help, asked, "corral help %s is corral %s -h", name, name)

				if offVision {
					return
				}
				var stdout, stderr string
				stderr = captureStderr(t, func() { stdout = captureStdout(t, func() { code = realMain(append(words, "--no-such-flag")) }) })
				assert.Equal(t, 2, code)
				assert.Empty(t, stdout)
				assert.Equal(t, "corral "+name+": flag provided but not defined: -no-such-flag\nrun 'corral "+name+" -h' for its flags\n", stderr)
			})
		}
	}
}
