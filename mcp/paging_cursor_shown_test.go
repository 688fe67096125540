package mcp

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/typo"
)

// A cursor the gateway cannot read is quoted as any word a caller sent is (typo.Shown): whole
// when short, else cut at typo.MaxShown bytes, so a pasted page does not bury the advice.
func TestBadCursorIsQuotedShort(t *testing.T) {
	var filters [filterPrintLen]byte
	for _, s := range []string{"page=2", strings.Repeat("!", 300), strings.Repeat("é", 100)} {
		_, err := decodeCursor(s, listDevices, filters)
		require.Error(t, err, s)
		assert.Contains(t, err.Error(), `cursor "`+typo.Shown(s)+`" `, s)
		assert.LessOrEqual(t, len(err.Error()), typo.MaxShown+len(errCursor.Error())+200, "a %d-byte cursor quoted whole", len(s))
	}
}
