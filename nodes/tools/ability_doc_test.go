package tools

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The ability table of docs/adding-a-driver.md says, for each ability, which tools need it and
// which use it when present: as the tools' Needs and Uses say, so that it cannot drift.
func TestAddingADriverAbilityTable(t *testing.T) {
	doc, err := os.ReadFile("../../docs/adding-a-driver.md")
	require.NoError(t, err)
	rows := map[string][]string{}
	for _, m := range regexp.MustCompile("(?m)^\\| `(\\w+)` \\|(.*)\\|$").FindAllStringSubmatch(string(doc), -1) {
		rows[m[1]] = strings.Split(m[2], "|")
	}
	needs, uses := abilityTools()
	for iface := range merge(needs, uses) {
		row, ok := rows[iface]
		if !assert.True(t, ok, "docs/adding-a-driver.md has no row for %s", iface) {
			continue
		}
		require.Len(t, row, 3, "%s's row: | interface | ability | needed by | used by |", iface)
		assert.Equal(t, toolList(needs[iface]), strings.TrimSpace(row[1]), "tools that need %s", iface)
		assert.Equal(t, toolList(uses[iface]), strings.TrimSpace(row[2]), "tools that use %s", iface)
	}
}

// abilityTools returns, by ability interface, the tools that need it and those that use it, in
// All's order.
func abilityTools() (needs, uses map[string][]string) {
	needs, uses = map[string][]string{}, map[string][]string{}
	for _, tool := range All() {
		for _, a := range tool.Needs {
			for _, name := range a.Names() {
				if n := needs[name]; len(n) == 0 || n[len(n)-1] != tool.Name {
					needs[name] = append(n, tool.Name)
				}
			}
		}
		for _, a := range tool.Uses {
			uses[a.Name()] = append(uses[a.Name()], tool.Name)
		}
	}
	return needs, uses
}

func merge(a, b map[string][]string) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

// toolList writes names as the table does: `a`, `b`; a dash for none.
func toolList(names []string) string {
	if len(names) == 0 {
		return "–"
	}
	return "`" + strings.Join(names, "`, `") + "`"
}
