package test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/internal/firefox"
)

// Issue 17: the console works in Firefox as in Chromium (Firefox driven over WebDriver BiDi, a
// real pointer for the clicks). The grid lists the simulated phones with their states; the
// device page shows the live screen; after Acquire is clicked, a click on the live screen taps
// the phone at that point of its screen, as its input log shows; no page logs an error.
func TestConsoleFirefox(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 3, Quiet: true, Auth: true})
	base := f.Gateway().HTTP.URL
	phone := f.Phone("n1-p1")
	size, err := phone.ScreenSize(t.Context())
	require.NoError(t, err)
	agent := f.Client("agent")
	farmtest.MustCall(t, agent, "acquire_device", args("serial", "n1-p2"))
	ff, page := consoleFirefox(t)

	ffNavigate(t, page, base+"/")
	ffWait(t, page, 10*time.Second, "the grid lists the phones with their states", cardsJS, func(v []string) bool {
		return slices.Equal(v, []string{"n1-p1 online —", "n1-p2 leased anonymous (agent)", "n1-p3 online —"})
	})
	ffWait(t, page, 15*time.Second, "n1-p3's live screen on the grid", screenJS("n1-p3"), func(v []int) bool { return len(v) == 2 })

	ffNavigate(t, page, base+"/devices/n1-p1")
	wh := ffWait(t, page, 15*time.Second, "the device page's live screen", screenJS("n1-p1"), func(v []int) bool { return len(v) == 2 })
	assert.InDelta(t, float64(size.Width)/float64(size.Height), float64(wh[0])/float64(wh[1]), 0.01, "frame %v of a %v screen", wh, size)
	seq := ffEval[int](t, page, seqJS)
	ffWait(t, page, 10*time.Second, "a newer frame", seqJS, func(n int) bool { return n > seq })

	ffClick(t, page, ffEval[[]float64](t, page, `(() => {
  const b = document.querySelector('button[data-action=acquire]');
  b.scrollIntoView({block: 'center'});
  const r = b.getBoundingClientRect();
  return [r.left + r.width / 2, r.top + r.height / 2];
})()`))
	ffResult(t, page, 1, "This console holds n1-p1")

	ffClick(t, page, ffEval[[]float64](t, page, pagePointJS(0.5, 0.25)))
	ffResult(t, page, 2, "tapped at")
	tap := strings.Fields(lastInputs(phone, 1)[0])
	require.Equal(t, "tap", tap[0], "the phone's last input")
	assertNear(t, tap[1], size.Width/2, size.Width/100, "the tap's x")
	assertNear(t, tap[2], size.Height/4, size.Height/100, "the tap's y")

	assert.Empty(t, ff.Errors(), "the console's pages logged errors in Firefox")
}

// consoleFirefox starts a headless Firefox with a laptop's viewport (1280×800) and returns its
// tab; without Firefox the test is skipped, or fails under CORRAL_REQUIRE_TOOLS.
func consoleFirefox(t *testing.T) (*firefox.Browser, *firefox.Page) {
	t.Helper()
	if _, err := firefox.Find(); err != nil {
		tool(t, firefox.Names[0])
	}
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	b, err := firefox.Start(ctx, firefox.Options{Width: 1280, Height: 800})
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, b.Close()) })
	p, err := b.Page(ctx)
	require.NoError(t, err)
	return b, p
}

func ffNavigate(t *testing.T, p *firefox.Page, url string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	require.NoError(t, p.Navigate(ctx, url))
}

// ffClick clicks at the point [x, y] of the page.
func ffClick(t *testing.T, p *firefox.Page, at []float64) {
	t.Helper()
	require.Len(t, at, 2)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	require.NoError(t, p.Click(ctx, at[0], at[1]))
}

// ffTry evaluates expr in the page within 5 s, into a T.
func ffTry[T any](t *testing.T, p *firefox.Page, expr string) (T, error) {
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	var v T
	raw, err := p.Evaluate(ctx, expr)
	if err == nil {
		err = json.Unmarshal(raw, &v)
	}
	return v, err
}

func ffEval[T any](t *testing.T, p *firefox.Page, expr string) T {
	t.Helper()
	v, err := ffTry[T](t, p, expr)
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// ffWait is waitPage in Firefox: expr every 20 ms until ok accepts its value.
func ffWait[T any](t *testing.T, p *firefox.Page, timeout time.Duration, what, expr string, ok func(T) bool) T {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		v, err := ffTry[T](t, p, expr)
		if err == nil && ok(v) {
			return v
		}
		if time.Now().After(deadline) {
			page, _ := ffTry[string](t, p, `location.href + "\n" + document.body.innerText.slice(0, 400)`)
			t.Fatalf("not within %s: %s (last: %+v, %v); the page: %s", timeout, what, v, err, page)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// ffResult is waitResult in Firefox: the page's nth answer to an action succeeded and says want.
func ffResult(t *testing.T, p *firefox.Page, n int, want string) {
	t.Helper()
	v := ffWait(t, p, 15*time.Second, fmt.Sprintf("answer %d to an action", n), resultJS,
		func(v []string) bool { return len(v) == 3 && v[0] == strconv.Itoa(n) })
	require.True(t, v[1] == "ok" && strings.Contains(v[2], want), "answer %d: %s %q; want ok and %q", n, v[1], v[2], want)
}
