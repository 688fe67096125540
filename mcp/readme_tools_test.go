package mcp

import (
	"os"
	"strings"
	"testing"
)

// The README's Tools table names every tool tools/list serves (it lacked emergency_stop, the
// arm rigs' and the browsers' tools).
func TestReadmeToolsTableNamesEveryTool(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	table := section(t, string(b), "\n## Tools\n", "\n### ")
	for _, d := range catalog() {
		if !strings.Contains(table, "`"+d.tool.Name+"`") {
			t.Errorf("README.md's Tools table does not name %s", d.tool.Name)
		}
	}
}

// section is the text of s from start to the next end after it.
func section(t *testing.T, s, start, end string) string {
	t.Helper()
	i := strings.Index(s, start)
	if i < 0 {
		t.Fatalf("no %q", start)
	}
	s = s[i+len(start):]
	if j := strings.Index(s, end); j >= 0 {
		s = s[:j]
	}
	return s
}
