package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/tools"
)

// latePage adds #late (a button) 300 ms after the page is first asked for it
// (document.querySelectorAll("#late"), or querySelector): the first look for it always misses,
// as on a page that is still building, however slow the machine.
const latePage = `<!doctype html><html><head><meta name="viewport" content="width=device-width,initial-scale=1">
<style>body{margin:0} #late{display:block;width:200px;height:60px;margin:20px}</style></head><body><p>Loading</p>
<script>
const log = (type, e) => navigator.sendBeacon("/log", JSON.stringify({type, id: (e.target && e.target.id) || ""}));
for (const t of ["click", "contextmenu"]) addEventListener(t, e => log(t, e), true);
let asked = false;
const ask = sel => {
  if (sel === "#late" && !asked) {
    asked = true;
    setTimeout(() => { const b = document.createElement("button"); b.id = "late"; b.textContent = "Late"; document.body.append(b); }, 300);
  }
};
for (const name of ["querySelector", "querySelectorAll"]) {
  const q = Document.prototype[name];
  document[name] = function (sel) { ask(sel); return q.call(this, sel); };
}
</script></body></html>`

// lateServer serves latePage and records the events it posts.
func lateServer(t *testing.T) *recorder { return pageServer(t, latePage) }

// pageServer serves page and records the events it posts to /log.
func pageServer(t *testing.T, page string) *recorder {
	r := &recorder{}
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, page) })
	mux.HandleFunc("POST /log", func(w http.ResponseWriter, req *http.Request) {
		var e pageEvent
		if json.NewDecoder(req.Body).Decode(&e) == nil {
			r.mu.Lock()
			r.events = append(r.events, e)
			r.mu.Unlock()
		}
	})
	r.srv = httptest.NewServer(mux)
	t.Cleanup(r.srv.Close)
	return r
}

var foundOnLook = regexp.MustCompile(`found on look (\d+) of up to (\d+)`)

// The by-selector tools honour HttpRunner's general option max_retry_times: an element the
// page adds 300 ms after the first look is found by a later look, and the answer says which;
// without the option the one look misses it (not_found). They looked once whatever it said.
func TestSelectorToolsLookAgain(t *testing.T) {
	d := startBrowser(t, "phone")
	r := lateServer(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	run := func(ctx context.Context, tool, args string) (tools.SelectorResult, error) {
		require.NoError(t, d.LaunchApp(ctx, r.srv.URL+"/"), "a fresh page: #late is not there yet")
		out, err := tools.DefaultOps()[tool].Run(ctx, &tools.Task{Driver: d, Args: []byte(args)})
		if err != nil {
			return tools.SelectorResult{}, err
		}
		return out.Data.(tools.SelectorResult), nil
	}

	_, err := run(ctx, "tap_by_selector", `{"selector":"#late"}`)
	require.Error(t, err, "one look, before the page adds it")
	assert.Equal(t, broker.CodeNotFound, tools.ErrorCode(err), "%v", err)
	assert.NotContains(t, err.Error(), "looked")

	for _, c := range []struct{ tool, event string }{{"tap_by_selector", "click"}, {"secondary_click_by_selector", "contextmenu"}} {
		r.reset()
		res, err := run(ctx, c.tool, `{"selector":"#late","max_retry_times":10}`)
		require.NoError(t, err, c.tool)
		assert.True(t, res.Found)
		m := foundOnLook.FindStringSubmatch(res.Message)
		require.NotNil(t, m, "%s: the answer says which look found it: %q", c.tool, res.Message)
		n, _ := strconv.Atoi(m[1])
		assert.GreaterOrEqual(t, n, 2, "%s: the first look cannot find it", c.tool)
		assert.Equal(t, "11", m[2])
		r.await(t, c.tool+" on #late", on(c.event, "late"))
	}

	// Never there: not_found after every look, saying how many; with ignore_NotFoundError, a
	// result that says so.
	_, err = run(ctx, "hover_by_selector", `{"selector":"#never","max_retry_times":2}`)
	require.Error(t, err)
	assert.Equal(t, broker.CodeNotFound, tools.ErrorCode(err), "%v", err)
	assert.Contains(t, err.Error(), "looked 3 times, 500ms apart")
	res, err := run(ctx, "tap_by_selector", `{"selector":"#never","max_retry_times":1,"ignore_NotFoundError":true}`)
	require.NoError(t, err)
	assert.False(t, res.Found)
	assert.Contains(t, res.Message, "looked 2 times")
}

// Looking again stays within the task's deadline: with no time left for another look, the
// tool answers not_found, saying why it stopped, rather than run out of time.
func TestSelectorRetriesStopBeforeTheDeadline(t *testing.T) {
	d := startBrowser(t, "phone")
	r := lateServer(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	require.NoError(t, d.LaunchApp(ctx, r.srv.URL+"/"))
	short, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	_, err := tools.DefaultOps()["tap_by_selector"].Run(short, &tools.Task{Driver: d, Args: []byte(`{"selector":"#never","max_retry_times":50}`)})
	require.Error(t, err)
	assert.Equal(t, broker.CodeNotFound, tools.ErrorCode(err), "%v", err)
	assert.Contains(t, err.Error(), "the deadline left no time for look")
	assert.NoError(t, short.Err(), "answered before the deadline")
}
