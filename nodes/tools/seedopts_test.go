package tools

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
)

// The six general options of HttpRunner's seed (通用参数 → 行为参数), as its
// extractActionOptionsToArguments adds them to any action.
var seedOptionArgs = map[string]any{"anti_risk": true, "ignore_NotFoundError": true, "regex": true,
	"pre_mark_operation": true, "max_retry_times": 2, "index": 0}

// Every httprunner tool takes them (none is an unknown argument); the schemas list only those a
// tool uses, each once. They were refused on all but the find-and-tap tools.
func TestEveryHttpRunnerToolTakesTheSeedOptions(t *testing.T) {
	raw, err := json.Marshal(seedOptionArgs)
	require.NoError(t, err)
	for _, tl := range All() {
		if !slices.Contains(tl.Profiles, HttpRunner) {
			continue
		}
		err := DecodeArgs(raw, reflect.New(tl.Args).Interface())
		if msg, unknown, _ := ArgProblem(err); unknown {
			t.Errorf("%s refuses HttpRunner's general options: %s", tl.Name, msg)
		}
		for name := range seedOptionArgs {
			if props, _ := tl.InputSchema(); props[name] == nil && !TakesUnlisted(tl.Name, name) {
				t.Errorf("%s: %s is neither in its schema nor taken unlisted", tl.Name, name)
			}
		}
	}
	props, _ := Tool{Args: reflect.TypeFor[TapXYArgs]()}.InputSchema()
	for _, name := range []string{"max_retry_times", "index", "regex", "ignore_NotFoundError"} {
		assert.Nil(t, props[name], "tap_xy's schema lists %s, which it does not use", name)
	}
	props, _ = Tool{Args: reflect.TypeFor[TapOCRArgs]()}.InputSchema()
	assert.Equal(t, "Which match: 0 first, -1 last", props["index"]["description"], "tap_ocr's own index")
	assert.EqualValues(t, 20, props["max_retry_times"]["maximum"], "tap_ocr's own max_retry_times, not Behaviour's")
	assert.False(t, TakesUnlisted("tap_ocr", "index"))
	assert.True(t, TakesUnlisted("tap_xy", "index"))
}

// Taken where they mean nothing, and ignored: tap_xy taps once. Where they mean something the
// tool does: swipe_to_tap_text and swipe_to_tap_app honour index, swipe_to_tap_app regex
// (tap_cv honours index too: TestWorkerTapCVIndex; the by-selector tools: nodes/web's
// TestSelectorToolsTakeIndex).
func TestSeedOptionsIgnoredOrHonoured(t *testing.T) {
	p := simIn(t, "com.corral.shop")
	out, err := runOp(t, "tap_xy", p, `{"x":0.5,"y":0.5,"max_retry_times":3,"index":2,"regex":true,"ignore_NotFoundError":true}`)
	require.NoError(t, err)
	assert.Contains(t, dataOf(t, out)["message"], "tapped")
	assert.Equal(t, 1, strings.Count(strings.Join(p.InputLog(), "\n"), "tap "), "one tap")

	// Item 1 … Item 9 on screen: index 2 is the third.
	p = simIn(t, "com.corral.shop")
	out, err = runOp(t, "swipe_to_tap_text", p, `{"text":"^Item \\d$","regex":true,"index":2,"interval":0.01}`)
	require.NoError(t, err)
	assert.Equal(t, "Item 3", out.Data.(TapTextResult).Text)

	p = simIn(t, "com.corral.notes")
	out, err = runOp(t, "swipe_to_tap_app", p, `{"appName":"^Sh.p$","regex":true,"interval":0.01}`)
	require.NoError(t, err)
	assert.Equal(t, "Shop", out.Data.(SwipeToTapAppResult).AppName)

	for _, c := range []struct{ tool, args, want string }{
		{"tap_xy", `{"x":0.5,"y":0.5,"max_retry_times":"three"}`, "max_retry_times"},
	} {
		_, err := runOp(t, c.tool, simIn(t, ""), c.args)
		wantCode(t, err, broker.CodeBadInput)
		assert.Contains(t, err.Error(), c.want, c.tool)
	}
}
