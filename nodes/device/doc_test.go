package device_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// docs/adding-a-driver.md cannot drift: its Go block is the example driver of this package,
// verbatim.
func TestAddingADriverDocIsCompiledCode(t *testing.T) {
	doc, err := os.ReadFile("../../docs/adding-a-driver.md")
	require.NoError(t, err)
	example, err := os.ReadFile("example_test.go")
	require.NoError(t, err)
	blocks := strings.Split(string(doc), "```go\n")[1:]
	require.Len(t, blocks, 1, "docs/adding-a-driver.md has one Go block")
	code, _, _ := strings.Cut(blocks[0], "```")
	assert.Contains(t, string(example), code, "the Go block of docs/adding-a-driver.md is not nodes/device/example_test.go's")
}
