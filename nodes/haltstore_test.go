package nodes

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A halt's reason of a mebibyte (a driver's error with a tool's whole output) is kept cut as
// the device's entry cuts it, not refused by corral_calibrations (64KiB a value): the rig
// comes back halted after a restart, with the reason it showed before.
func TestHaltOfAMebibyteIsKeptCut(t *testing.T) {
	ctx, stores, _ := mirrorStores(t)
	n, logs := startLogged(t, ctx, stores)

	reason := "controller in alarm: " + strings.Repeat("<é> ", 1<<18)
	require.NoError(t, n.SaveHalt(ctx, "r1", reason))
	kept, err := n.LoadHalt(ctx, "r1")
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(kept, "controller in alarm: <é> "), "%.40q", kept)
	assert.True(t, strings.HasSuffix(kept, ellipsis), "not cut: %d bytes", len(kept))
	assert.True(t, utf8.ValidString(kept), "cut inside a character")
	assert.LessOrEqual(t, jsonLen(kept), maxReasonJSON)
	assert.Equal(t, n.bounds.reasonText("r1", reason), kept, "the kept halt is not the one its device shows")
	cut := 0
	for _, r := range logs.Records() {
		if strings.HasPrefix(r.Message, "a driver's text does not fit") {
			cut++
		}
	}
	assert.Equal(t, 1, cut, "the cut said once")

	require.NoError(t, n.SaveHalt(ctx, "r1", "")) // recovered: forgotten
	kept, err = n.LoadHalt(ctx, "r1")
	require.NoError(t, err)
	assert.Empty(t, kept)
}
