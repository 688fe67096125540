package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// docs/adding-a-tool.md cannot drift: each of its Go blocks is compiled code of this package,
// verbatim (get_foreground_app.go whole, its line in All, the argument struct of
// ExampleInputSchema).
func TestAddingAToolDocIsCompiledCode(t *testing.T) {
	doc, err := os.ReadFile("../../docs/adding-a-tool.md")
	require.NoError(t, err)
	var code strings.Builder
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		code.Write(b)
	}
	whole, err := os.ReadFile("get_foreground_app.go")
	require.NoError(t, err)

	blocks := strings.Split(string(doc), "```go\n")[1:]
	require.Len(t, blocks, 3)
	for i, b := range blocks {
		b, _, _ = strings.Cut(b, "```")
		assert.Contains(t, code.String(), b, "Go block %d of docs/adding-a-tool.md is not in nodes/tools", i+1)
	}
	first, _, _ := strings.Cut(blocks[0], "```")
	assert.Equal(t, string(whole), first, "the doc shows get_foreground_app.go whole")
}
