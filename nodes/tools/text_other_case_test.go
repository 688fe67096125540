package tools

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/vision"
)

// tap_ocr "item 3" on a screen reading "Item 3" said only that the text was not there:
// matching is case-sensitive. Its error names what shows and how to match any case, and the
// call it suggests taps it; a regex is told of (?i). Nothing is tapped meanwhile.
func TestTapOCRSaysATextShowsInAnotherCase(t *testing.T) {
	p := simIn(t, "com.corral.shop")
	before := len(p.InputLog())
	_, err := runOp(t, "tap_ocr", p, `{"text":"item 3"}`)
	require.Error(t, err)
	assert.ErrorIs(t, err, vision.ErrNoWorker, "not in the tree as asked, and no worker: still that error")
	assert.Contains(t, err.Error(), `did you mean "Item 3"? "item 3" matches case-sensitively: pass regex true and text "(?i)item 3" to match any case`)

	_, err = runOp(t, "tap_ocr", p, `{"text":"^item 3$","regex":true}`)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `did you mean "Item 3"? /^item 3$/ matches case-sensitively: start it with (?i) to match any case`)
	assert.Len(t, p.InputLog(), before, "nothing tapped")

	out, err := runOp(t, "tap_ocr", p, `{"text":"(?i)item 3","regex":true}`)
	require.NoError(t, err, "the call the hint gives")
	assert.Equal(t, "Item 3", dataOf(t, out)["text"])

	// No other case on screen: no hint.
	p = simIn(t, "com.corral.shop")
	_, err = runOp(t, "tap_ocr", p, `{"text":"Checkout"}`)
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "did you mean")
	_, err = runOp(t, "tap_ocr", p, `{"text":"(?i)checkout","regex":true}`)
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "did you mean")
}
