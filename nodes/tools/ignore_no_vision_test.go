package tools

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/vision"
)

// ignore_NotFoundError lets "not found" pass, nothing else (the seed: 忽略元素未找到错误). A
// text the UI tree lacks with no vision worker was not looked for where only OCR sees it: the
// find-and-tap tools say vision_unavailable with the flag as without it, as tap_cv does. They
// answered tapped:false before.
func TestIgnoreNotFoundDoesNotHideNoVision(t *testing.T) {
	for _, c := range []struct{ tool, args string }{
		{"tap_ocr", `{"text":"NoSuch","ignore_NotFoundError":true}`},
		{"swipe_to_tap_text", `{"text":"NoSuch","max_retry_times":2,"interval":0.01,"ignore_NotFoundError":true}`},
		{"swipe_to_tap_texts", `{"texts":["NoSuch","Nor this"],"max_retry_times":2,"interval":0.01,"ignore_NotFoundError":true}`},
		{"swipe_to_tap_app", `{"appName":"NoSuch","max_retry_times":2,"interval":0.01,"ignore_NotFoundError":true}`},
	} {
		p := simIn(t, "com.corral.shop")
		out, err := runWith(t, OpsConfig{Vision: emptyFarm(t)}, c.tool, p, c.args)
		require.Error(t, err, "%s answered %+v", c.tool, out.Data)
		assert.Equal(t, broker.CodeNoVision, ErrorCode(err), "%s: %v", c.tool, err)
		assert.True(t, errors.Is(err, vision.ErrNoWorker), "%s: %v", c.tool, err)
		assert.Contains(t, err.Error(), "corral vision", c.tool)
		assert.False(t, showing(t, p, itemPage), "%s tapped nothing", c.tool)
	}

	// Found in the tree, but not at the index asked: that is not found, and the flag lets it pass.
	out, err := runOp(t, "tap_ocr", simIn(t, "com.corral.shop"), `{"text":"^Item \\d$","regex":true,"index":40,"ignore_NotFoundError":true}`)
	require.NoError(t, err)
	d := dataOf(t, out)
	assert.Equal(t, false, d["tapped"])
	assert.Contains(t, d["message"], "9 matches")
}
