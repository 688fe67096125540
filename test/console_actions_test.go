package test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/sim"
)

// Issue 17, phase 2: the device page's actions in a real browser over a real farm. Without a
// policy the viewer is anonymous and may do everything. The console acquires a phone (its
// holder shows as "anonymous (console)"), types into Notes, presses Home, taps and swipes on
// the live screen, and each lands on the phone itself, as its input log shows; a device an MCP
// agent holds refuses the console's tap as busy, naming the agent; Abort ends an agent's task;
// Release gives the phone back. A lease taken through MCP shows on the grid within a second of
// the acquire.
func TestConsoleActions(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 3, Quiet: true, Auth: true})
	base := f.Gateway().HTTP.URL
	phone := f.Phone("n1-p1")
	size, err := phone.ScreenSize(t.Context())
	require.NoError(t, err)
	agent := f.Client("agent")
	farmtest.MustCall(t, agent, "app_launch", args("serial", "n1-p1", "packageName", "com.corral.notes"))
	ctx := consoleBrowser(t)

	// A lease taken through MCP shows its holder on the grid within a second of the acquire.
	browse(t, ctx, chromedp.Navigate(base+"/"))
	waitPage(t, ctx, 10*time.Second, "the grid", cardsJS, func(v []string) bool { return len(v) == 3 })
	start := time.Now()
	agentLease := leaseOf(t, farmtest.MustCall(t, agent, "acquire_device", args("serial", "n1-p2")))
	waitPage(t, ctx, time.Second-time.Since(start), "n1-p2's holder on the grid", cardsJS, func(v []string) bool {
		return slices.Contains(v, "n1-p2 leased anonymous (agent)")
	})
	t.Logf("the lease showed on the grid %s after acquire_device was called", time.Since(start).Round(time.Millisecond))

	// Acquire on the device page: this console session holds the phone.
	browse(t, ctx, chromedp.Navigate(base+"/devices/n1-p1"))
	waitPage(t, ctx, pageWait, "the live screen", screenJS("n1-p1"), func(v []int) bool { return len(v) == 2 })
	assert.Equal(t, "abort acquire back force_release home release swipe tap type",
		evalPage[string](t, ctx, `document.getElementById('controls').dataset.can`), "an anonymous viewer's actions: all")
	clickAction(t, ctx, "acquire")
	waitResult(t, ctx, 1, true, "This console holds n1-p1")
	waitPage(t, ctx, 5*time.Second, "the page shows the console's hold", `[document.getElementById('controls').dataset.held,
	  document.querySelector('button[data-action=acquire]').hidden, document.querySelector('button[data-action=release]').hidden,
	  document.querySelector('main [data-f=holder]').textContent]`, func(v []any) bool {
		return fmt.Sprint(v) == "[true true false anonymous (console)]"
	})
	dev, _ := f.Gateway().Client.Device("n1-p1")
	assert.Equal(t, "anonymous (console)", dev.Holder)

	// Type into the focused note, press Home: on the phone.
	evalPage[bool](t, ctx, `(() => {
  const f = document.querySelector('form[data-action=type]');
  f.elements.text.value = 'hello from the console';
  f.requestSubmit();
  return true;
})()`)
	waitResult(t, ctx, 2, true, "typed 22 characters")
	seq := evalPage[int](t, ctx, seqJS)
	waitPage(t, ctx, 10*time.Second, "a frame of the note typed", seqJS, func(n int) bool { return n > seq+1 })
	// The console's calls are tasks like any: their records name the console's holder.
	waitPage(t, ctx, 10*time.Second, "the timeline shows the console's typing", `[...document.querySelectorAll('#timeline tr[data-task]')].map(r =>
	  [...r.children].slice(1, 4).map(c => c.textContent.trim()).join(' '))[0] || ''`, func(s string) bool {
		return s == "input anonymous (console) succeeded"
	})
	saveDoc(t, ctx, "console-actions.png")
	clickAction(t, ctx, "home")
	waitResult(t, ctx, 3, true, "")
	require.Equal(t, []string{`text "hello from the console"`, "key HOME"}, lastInputs(phone, 2))

	// A click on the live screen taps the phone at the same point of its screen, in its pixels;
	// a drag swipes.
	x, y := pagePoint(t, ctx, 0.5, 0.25)
	browse(t, ctx, chromedp.MouseClickXY(x, y))
	waitResult(t, ctx, 4, true, "tapped at")
	tap := strings.Fields(lastInputs(phone, 1)[0])
	require.Equal(t, "tap", tap[0], "the phone's last input")
	assertNear(t, tap[1], size.Width/2, size.Width/100, "the tap's x")
	assertNear(t, tap[2], size.Height/4, size.Height/100, "the tap's y")

	fx, fy := pagePoint(t, ctx, 0.5, 0.8)
	tx, ty := pagePoint(t, ctx, 0.5, 0.3)
	browse(t, ctx,
		chromedp.MouseEvent(chromedp.MousePressed, fx, fy, chromedp.ButtonLeft, chromedp.ClickCount(1)),
		chromedp.MouseEvent(chromedp.MouseMoved, (fx+tx)/2, (fy+ty)/2, func(p *input.DispatchMouseEventParams) { p.Buttons = 1 }),
		chromedp.MouseEvent(chromedp.MouseReleased, tx, ty, chromedp.ButtonLeft, chromedp.ClickCount(1)))
	waitResult(t, ctx, 5, true, "")
	swipe := strings.Fields(lastInputs(phone, 1)[0])
	require.Equal(t, "swipe", swipe[0], "the phone's last input")
	assertNear(t, swipe[1], size.Width/2, size.Width/100, "the swipe's start x")
	assertNear(t, swipe[2], size.Height*8/10, size.Height/100, "the swipe's start y")
	assertNear(t, swipe[4], size.Height*3/10, size.Height/100, "the swipe's end y")

	// Release gives the phone back.
	clickAction(t, ctx, "release")
	waitResult(t, ctx, 6, true, "Released device n1-p1")
	farmtest.Eventually(t, 5*time.Second, func() bool {
		d, _ := f.Gateway().Client.Device("n1-p1")
		return d.State == broker.StateOnline && d.Holder == ""
	}, "n1-p1 free again")
	assert.Equal(t, "false", evalPage[string](t, ctx, `document.getElementById('controls').dataset.held`))

	// The agent's device: the console's tap is refused as busy, naming the agent; nothing lands.
	agentPhone := f.Phone("n1-p2")
	before := len(agentPhone.InputLog())
	browse(t, ctx, chromedp.Navigate(base+"/devices/n1-p2"))
	waitPage(t, ctx, pageWait, "n1-p2's live screen", screenJS("n1-p2"), func(v []int) bool { return len(v) == 2 })
	x, y = pagePoint(t, ctx, 0.5, 0.5)
	browse(t, ctx, chromedp.MouseClickXY(x, y))
	waitResult(t, ctx, 1, false, "anonymous (agent)")
	assert.Len(t, agentPhone.InputLog(), before, "the console's tap reached a phone the agent holds")

	// Abort ends the agent's running task at once.
	sleeping := farmtest.Go(t, agent, "sleep", args("serial", "n1-p2", "lease", agentLease, "seconds", 60))
	farmtest.Eventually(t, 5*time.Second, func() bool {
		d, _ := f.Gateway().Client.Device("n1-p2")
		return d.Task != nil && d.Task.Tool == "sleep"
	}, "the agent's sleep runs")
	clickAction(t, ctx, "abort")
	waitResult(t, ctx, 2, true, "Aborted 1 task")
	select {
	case a := <-sleeping:
		assert.Contains(t, farmtest.Text(a.Get(t)), "abort")
	case <-time.After(10 * time.Second):
		t.Fatal("the agent's sleep did not end after Abort")
	}
	assert.Equal(t, 1.0, scrape(t, base, `corral_console_actions_total{action="tap",outcome="succeeded"}`))
	assert.Equal(t, 1.0, scrape(t, base, `corral_console_actions_total{action="tap",outcome="failed"}`))
}

// Principals of the actions' policy: reader may only look; dev may use every tool; ops (its
// token is policy_paths_test.go's) is an operator too.
const (
	devToken  = "dev-token-a1b2c3d4e5f60718"
	actPolicy = `principals:
  - name: reader
    token: ` + readerToken + `
    tools: [readonly]
  - name: dev
    token: ` + devToken + `
  - name: ops
    token: ` + opsToken + `
    operator: true
`
)

// The console's actions are the front door's: a principal without the rights sees no action
// buttons, and forging the request with its own cookie and the page's CSRF token gets 403 and
// the policy's refusal; force release is for operators. A POST without the page's CSRF token,
// with a wrong one, from another site (a browser page on another port of the machine, which
// the gateway's loopback Origin rule lets through, carrying the right token), or with a
// foreign Origin is refused, and nothing reaches the phone.
func TestConsoleActionsRefused(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{Quiet: true})
	base := consolePolicyGateway(t, f, actPolicy)
	phone := f.Phone("n1-p1")
	inputs := func() int { return len(phone.InputLog()) }
	before := inputs()

	// reader: no action on its page; forged, the tools' policy refuses them.
	reader := openConsole(t, base, readerToken, "n1-p1")
	assert.NotContains(t, reader.page, `id="controls"`, "reader's page offers actions")
	for _, a := range []string{"tap", "acquire", "force_release"} {
		body := map[string]string{"tap": `{"x":0.5,"y":0.5}`}[a]
		status, msg := reader.post(t, a, body)
		assert.Equal(t, http.StatusForbidden, status, "%s: %s", a, msg)
		assert.Contains(t, msg, `denied by policy: principal "reader" may not`, a)
	}

	// dev acts, but may not force a release; refused requests change nothing.
	dev := openConsole(t, base, devToken, "n1-p1")
	assert.Contains(t, dev.page, `data-action="acquire"`)
	assert.NotContains(t, dev.page, `data-action="force_release"`, "dev is no operator")
	for name, h := range map[string][2]string{
		"no CSRF token":                          {csrfHeaderName, ""},
		"a wrong CSRF token":                     {csrfHeaderName, "AAAA" + dev.csrf[4:]},
		"a page of another port (same-site)":     {"Sec-Fetch-Site", "same-site"},
		"a page of another site":                 {"Sec-Fetch-Site", "cross-site"},
		"a foreign Origin (the gateway's check)": {"Origin", "http://evil.example"},
	} {
		status, msg := dev.post(t, "tap", `{"x":0.5,"y":0.5}`, h[0], h[1])
		assert.Equal(t, http.StatusForbidden, status, "%s: %s", name, msg)
	}
	status, msg := dev.post(t, "tap", `{"x":0.5,"y":1.5}`)
	assert.Equal(t, http.StatusBadRequest, status, msg)
	assert.Equal(t, before, inputs(), "a refused request reached the phone")
	status, msg = dev.post(t, "acquire", "")
	require.Equal(t, http.StatusOK, status, msg)
	status, msg = dev.post(t, "tap", `{"x":0.5,"y":0.5}`)
	require.Equal(t, http.StatusOK, status, msg)
	assert.Equal(t, before+1, inputs())
	status, msg = dev.post(t, "force_release", "")
	assert.Equal(t, http.StatusForbidden, status, msg)
	assert.Contains(t, msg, `principal "dev" may not force the release`)
	agent := mustAuthClient(t, base+"/mcp", "agent", opsToken)
	res := farmtest.Call(t, agent, "tap_xy", args("serial", "n1-p1", "x", 0.5, "y", 0.5))
	require.True(t, res.IsError)
	assert.Contains(t, farmtest.Text(res), "dev (console)", "the busy answer names the console's holder")

	// ops: the button, and the revocation; dev's page then holds nothing.
	ops := openConsole(t, base, opsToken, "n1-p1")
	assert.Contains(t, ops.page, `data-action="force_release"`)
	status, msg = ops.post(t, "force_release", "")
	require.Equal(t, http.StatusOK, status, msg)
	assert.Contains(t, msg, "Revoked the lease of n1-p1 held by dev (console)")
	status, msg = dev.post(t, "release", "")
	assert.Equal(t, http.StatusConflict, status, msg)

	// In a browser: reader's page has no action button, and its forged fetch gets 403.
	ctx := consoleBrowser(t)
	browse(t, ctx, chromedp.Navigate(base+"/devices/n1-p1?token="+readerToken))
	waitPage(t, ctx, pageWait, "reader's live screen", screenJS("n1-p1"), func(v []int) bool { return len(v) == 2 })
	assert.Zero(t, evalPage[int](t, ctx, `document.querySelectorAll('button[data-action], #controls').length`))
	forged, err := chromedp.Run(ctx, chromedp.Evaluate[string](`fetch('/console/devices/n1-p1/actions/tap', {method: 'POST', credentials: 'same-origin',
  headers: {'Content-Type': 'application/json', 'X-Corral-CSRF': document.querySelector('meta[name=corral-csrf]').content},
  body: '{"x":0.5,"y":0.5}'}).then(async r => r.status + ' ' + (await r.json()).message)`, chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(forged, `403 tap_xy refused (denied): denied by policy: principal "reader" may not call tap_xy`), forged)

	// dev logged in, a page of another origin of this machine posts the tap with dev's CSRF
	// token: its Origin passes the gateway's loopback rule, its cookies go with it (same site),
	// and the console refuses it as cross-site.
	browse(t, ctx, chromedp.Navigate(base+"/devices/n1-p1?token="+devToken))
	waitPage(t, ctx, 10*time.Second, "dev's page", `document.querySelectorAll('button[data-action]').length`, func(n int) bool { return n > 0 })
	devCSRF := evalPage[string](t, ctx, `document.querySelector('meta[name=corral-csrf]').content`)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, `<!doctype html><form method="post" action="%s/console/devices/n1-p1/actions/tap?x=1">
<input name="csrf" value="%s"></form><script>document.forms[0].submit()</script>`, base, devCSRF)
	}))
	t.Cleanup(other.Close)
	crossSite := `corral_console_actions_total{action="tap",outcome="cross_site"}`
	was := scrape(t, base, crossSite)
	browse(t, ctx, chromedp.Navigate(other.URL))
	farmtest.Eventually(t, 10*time.Second, func() bool { return scrape(t, base, crossSite) > was }, "the cross-site tap refused")
	assert.Equal(t, before+1, inputs(), "a cross-site request reached the phone")
	assert.Positive(t, scrape(t, base, `corral_console_actions_total{action="tap",outcome="csrf"}`))
	assert.Positive(t, scrape(t, base, `corral_console_actions_total{action="tap",outcome="denied"}`))
}

// seqJS is the sequence number of the device page's latest frame.
const seqJS = `Number(document.querySelector('main img[data-screen]').dataset.seq)`

// csrfHeaderName is the header the console's scripts send the page's CSRF token in.
const csrfHeaderName = "X-Corral-CSRF"

// consoleUser is a console session as a script would hold it: the cookies of a login and of a
// device page, and the page's CSRF token.
type consoleUser struct {
	base, serial string
	cookies      []*http.Cookie
	csrf, page   string
}

// openConsole logs in with token (?token=) and opens serial's page.
func openConsole(t *testing.T, base, token, serial string) *consoleUser {
	t.Helper()
	u := &consoleUser{base: base, serial: serial}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(base + "/devices/" + serial + "?token=" + token)
	require.NoError(t, err)
	resp.Body.Close()
	u.cookies = resp.Cookies()
	status, body, cookies := u.do(t, http.MethodGet, "/devices/"+serial, "")
	require.Equal(t, http.StatusOK, status, body)
	u.cookies = append(u.cookies, cookies...)
	u.page = body
	_, csrf, _ := strings.Cut(body, `<meta name="corral-csrf" content="`)
	u.csrf, _, _ = strings.Cut(csrf, `"`)
	require.NotEmpty(t, u.csrf)
	return u
}

// post posts an action with the page's CSRF token (unless header names csrfHeaderName: then
// with the value given): its status and message.
func (u *consoleUser) post(t *testing.T, action, body string, header ...string) (int, string) {
	t.Helper()
	h := append([]string{csrfHeaderName, u.csrf, "Content-Type", "application/json"}, header...)
	status, text, cookies := u.do(t, http.MethodPost, "/console/devices/"+u.serial+"/actions/"+action, body, h...)
	for _, ck := range cookies { // the console keeps the lease's handle in a cookie
		u.cookies = slices.DeleteFunc(u.cookies, func(c *http.Cookie) bool { return c.Name == ck.Name })
		if ck.MaxAge >= 0 {
			u.cookies = append(u.cookies, ck)
		}
	}
	var a struct {
		Message string `json:"message"`
	}
	_, msg, _ := strings.Cut(text, `"message":`)
	if q, err := strconv.QuotedPrefix(msg); err == nil {
		a.Message, _ = strconv.Unquote(q)
	}
	return status, a.Message
}

func (u *consoleUser) do(t *testing.T, method, path, body string, header ...string) (int, string, []*http.Cookie) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, u.base+path, strings.NewReader(body))
	require.NoError(t, err)
	for _, ck := range u.cookies {
		req.AddCookie(ck)
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i+1] == "" {
			req.Header.Del(header[i])
			continue
		}
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b), resp.Cookies()
}

// clickAction clicks an action's button on the device page.
func clickAction(t *testing.T, ctx context.Context, action string) {
	t.Helper()
	evalPage[bool](t, ctx, fmt.Sprintf(`document.querySelector('button[data-action=%q]').click() || true`, action))
}

// waitResult waits for the page's nth answer to an action (counted since the page opened), and
// checks its outcome and that its message says want.
func waitResult(t *testing.T, ctx context.Context, n int, ok bool, want string) {
	t.Helper()
	v := waitPage(t, ctx, pageWait, fmt.Sprintf("answer %d to an action", n), resultJS,
		func(v []string) bool { return len(v) == 3 && v[0] == strconv.Itoa(n) })
	if (v[1] == "ok") != ok || !strings.Contains(v[2], want) {
		t.Fatalf("answer %d: %s %q; want ok=%v and %q", n, v[1], v[2], ok, want)
	}
}

// resultJS is the device page's count of answers to actions, and the latest one's outcome and
// message.
const resultJS = `[document.getElementById('controls').dataset.done || '0',
  document.querySelector('[data-result]').dataset.outcome || '', document.querySelector('[data-result]').textContent]`

// pagePoint is where, in the page, the point (x, y) of the live screen's frame is shown.
func pagePoint(t *testing.T, ctx context.Context, x, y float64) (float64, float64) {
	t.Helper()
	p := evalPage[[]float64](t, ctx, pagePointJS(x, y))
	require.Len(t, p, 2)
	return p[0], p[1]
}

// pagePointJS computes pagePoint's point in the page.
func pagePointJS(x, y float64) string {
	return fmt.Sprintf(`(() => {
  const i = document.querySelector('main img[data-screen]'), r = i.getBoundingClientRect();
  const s = Math.min(r.width / i.naturalWidth, r.height / i.naturalHeight), w = i.naturalWidth * s, h = i.naturalHeight * s;
  return [r.left + (r.width - w) / 2 + %g * w, r.top + (r.height - h) / 2 + %g * h];
})()`, x, y)
}

// lastInputs are the last n lines of the phone's input log.
func lastInputs(p *sim.Phone, n int) []string {
	log := p.InputLog()
	return log[max(0, len(log)-n):]
}

func assertNear(t *testing.T, got string, want, tolerance int, what string) {
	t.Helper()
	v, err := strconv.Atoi(got)
	require.NoError(t, err, what)
	assert.InDelta(t, want, v, float64(tolerance), "%s: %d, want %d", what, v, want)
}
