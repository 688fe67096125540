package web

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/tools"
)

// threePage holds three buttons of one class, one, two and three in document order, and
// records which one a click, a right click or the pointer reaches.
const threePage = `<!doctype html><html><head><meta name="viewport" content="width=device-width,initial-scale=1">
<style>body{margin:0} .b{display:block;width:200px;height:60px;margin:20px}</style></head><body>
<button class="b" id="one">One</button><p>between</p><button class="b" id="two">Two</button>
<div><button class="b" id="three">Three</button></div><button id="other">Other</button>
<script>
const log = (type, e) => navigator.sendBeacon("/log", JSON.stringify({type, id: (e.target && e.target.id) || ""}));
for (const t of ["click", "contextmenu", "mouseover"]) addEventListener(t, e => log(t, e), true);
</script></body></html>`

// The by-selector tools honour HttpRunner's general option index: the index-th element the
// selector matches in document order (its browser driver's element_index), CSS or XPath,
// -1 the last; one past the last is not_found saying how many match, retried with
// max_retry_times and let pass with ignore_NotFoundError. They refused any index but 0.
func TestSelectorToolsTakeIndex(t *testing.T) {
	d := startBrowser(t, "phone")
	r := pageServer(t, threePage)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	require.NoError(t, d.LaunchApp(ctx, r.srv.URL+"/"))
	run := func(tool, args string) (tools.SelectorResult, error) {
		out, err := tools.DefaultOps()[tool].Run(ctx, &tools.Task{Driver: d, Args: []byte(args)})
		if err != nil {
			return tools.SelectorResult{}, err
		}
		return out.Data.(tools.SelectorResult), nil
	}

	for _, c := range []struct {
		tool, args, event, id string
	}{
		{"tap_by_selector", `{"selector":".b"}`, "click", "one"},
		{"tap_by_selector", `{"selector":".b","index":0}`, "click", "one"},
		{"tap_by_selector", `{"selector":".b","index":1}`, "click", "two"},
		{"tap_by_selector", `{"selector":".b","index":2}`, "click", "three"},
		{"tap_by_selector", `{"selector":".b","index":-1}`, "click", "three"},
		{"tap_by_selector", `{"selector":"//button[@class='b']","index":1}`, "click", "two"},
		{"secondary_click_by_selector", `{"selector":"button.b","index":2}`, "contextmenu", "three"},
		{"hover_by_selector", `{"selector":".b","index":1}`, "mouseover", "two"},
	} {
		r.reset()
		res, err := run(c.tool, c.args)
		require.NoError(t, err, "%s %s", c.tool, c.args)
		assert.True(t, res.Found)
		got := r.await(t, c.tool+" "+c.args, func(e pageEvent) bool { return e.Type == c.event })
		assert.Equal(t, c.id, got.ID, "%s %s", c.tool, c.args)
	}
	res, err := run("tap_by_selector", `{"selector":".b","index":2}`)
	require.NoError(t, err)
	assert.Contains(t, res.Message, `tapped ".b" at index 2`)

	r.reset()
	_, err = run("tap_by_selector", `{"selector":".b","index":3}`)
	require.Error(t, err, "three match: index 3 is none of them")
	assert.Equal(t, broker.CodeNotFound, tools.ErrorCode(err), "%v", err)
	assert.Contains(t, err.Error(), "3 elements match")
	assert.Contains(t, err.Error(), "0..2")
	_, err = run("hover_by_selector", `{"selector":".b","index":-4}`)
	assert.Equal(t, broker.CodeNotFound, tools.ErrorCode(err), "%v", err)
	_, err = run("tap_by_selector", `{"selector":".b","index":3,"max_retry_times":1}`)
	assert.Equal(t, broker.CodeNotFound, tools.ErrorCode(err), "%v", err)
	assert.Contains(t, err.Error(), "looked 2 times")
	res, err = run("secondary_click_by_selector", `{"selector":".b","index":3,"ignore_NotFoundError":true}`)
	require.NoError(t, err)
	assert.False(t, res.Found)
	assert.Contains(t, res.Message, "at index 3")
	_, err = run("tap_by_selector", `{"selector":"#other"}`) // a click the page records after any stray one
	require.NoError(t, err)
	r.await(t, "tap on #other", on("click", "other"))
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.events {
		if e.Type != "mouseover" { // a scroll can move what is under the pointer
			assert.Equal(t, "other", e.ID, "nothing not found was clicked: %+v", e)
		}
	}
}
