package mcp

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// README's paging example, run verbatim, pages on: its cursor decodes with the filters of the
// call it is given to, and starts after the last serial of the page shown before it. A change
// of the filter print or of the cursor's form fails here, not in a reader's terminal.
func TestReadmePagingCursorIsCurrent(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	calls := regexp.MustCompile(`corral call list_available_devices '(\{[^']*"cursor"[^']*\})'`).FindAllStringSubmatch(string(readme), -1)
	require.NotEmpty(t, calls, "README.md's Paging shows a call with a cursor")
	for _, m := range calls {
		var a listDevicesArgs
		require.NoError(t, json.Unmarshal([]byte(m[1]), &a), m[1])
		require.NoError(t, a.Check(), m[1])
		c, err := decodeCursor(a.Cursor, listDevices, a.filterPrint())
		require.NoError(t, err, "README.md's %s: regenerate the example from a real run (./bin/corral up --sim 120)", m[1])
		assert.Contains(t, string(readme), `"`+c.after+`"],"iosDevices"`, "the page before ends with the cursor's serial %s", c.after)
	}
}

// A cursor of the same list whose filter print differs is refused in words that hold for a
// cursor of an older Corral too, whose print of the same filters differed.
func TestCursorOfOtherFiltersMayBeOfAnotherVersion(t *testing.T) {
	made := listDevicesArgs{deviceFilter: deviceFilter{Platform: "android"}, FreeOnly: true}
	s := cursor{kind: listDevices, filters: made.filterPrint(), after: "sim-local-002"}.encode()
	_, err := decodeCursor(s, listDevices, (&listDevicesArgs{deviceFilter: deviceFilter{Platform: "android"}}).filterPrint())
	require.ErrorIs(t, err, errCursor)
	assert.Contains(t, err.Error(), "was made for other filters or by another version of Corral")
	assert.True(t, strings.HasSuffix(err.Error(), "or leave cursor out to start again from the first page"), err.Error())
}
