package test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What a new user tripped on (issue 9): each test here failed before its fix.

// The README's and the architecture page's introductions say what exists today (Android
// phones, real and simulated) and call iOS, browsers and arms planned, never present.
func TestDocsSayWhatExists(t *testing.T) {
	planned := regexp.MustCompile(`(?i)\b(browsers?|robotic[- ]arms?|arm rigs?|ios)\b`)
	for _, file := range []string{"../README.md", "../docs/architecture.md"} {
		b, err := os.ReadFile(file)
		require.NoError(t, err)
		intro := introduction(string(b))
		assert.Contains(t, intro, "Android", "%s: the introduction names no platform that exists", file)
		assert.Contains(t, intro, "simulated", "%s: the introduction does not mention the simulated devices", file)
		for _, sentence := range strings.SplitAfter(intro, ". ") {
			if planned.MatchString(sentence) {
				assert.Regexp(t, `planned|not built yet`, sentence, "%s promises a platform that has no driver", file)
			}
		}
	}
}

// introduction returns a Markdown page's text between its title and its first section.
func introduction(page string) string {
	_, rest, _ := strings.Cut(page, "\n")
	intro, _, _ := strings.Cut(rest, "\n## ")
	if i := strings.Index(intro, "\n```"); i >= 0 {
		intro = intro[:i]
	}
	return strings.Join(strings.Fields(intro), " ")
}
