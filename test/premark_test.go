package test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/mark3labs/mcp-go/client"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/internal/farmtest"
)

// HttpRunner's pre_mark_operation through the whole farm: tap_xy and swipe keep the screen
// they acted on with the target marked in magenta; get_task_result returns it as a JPEG whose
// target pixels are magenta where the same screen, unmarked, is not; the console's timeline
// links it; the node counts it. anti_risk varies a tap on the Android phone as a finger would.
func TestPreMarkOperationOnASimFarm(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true})
	serial := f.Devices()[0].Serial
	c := f.Client("httprunner-user")

	for _, step := range []struct {
		tool    string
		args    map[string]any
		targets [][2]float64 // relative points the mark covers
	}{
		{"tap_xy", args("x", 0.3, "y", 0.9), [][2]float64{{0.3, 0.9}}},
		{"swipe", args("from_x", 0.2, "from_y", 0.6, "to_x", 0.8, "to_y", 0.6), [][2]float64{{0.2, 0.6}, {0.5, 0.6}, {0.8, 0.6}}},
	} {
		before := screenImage(t, c, serial)
		a := step.args
		a["serial"], a["pre_mark_operation"] = serial, true
		var out struct{ MarkedScreenshots []string }
		farmtest.Structured(t, farmtest.MustCall(t, c, step.tool, a), &out)
		require.Len(t, out.MarkedScreenshots, 1, step.tool)
		var latest struct{ TaskID string }
		farmtest.Structured(t, farmtest.MustCall(t, c, "get_latest_task", args("anyTool", true)), &latest)

		rec := farmtest.MustCall(t, c, "get_task_result", args("taskId", latest.TaskID, "markedScreenshots", true))
		shots := images(t, rec)
		require.Len(t, shots, 1, farmtest.Text(rec))
		marked, err := jpeg.Decode(bytes.NewReader(shots[0]))
		require.NoError(t, err, "a marked screen is a JPEG")
		require.Equal(t, before.Bounds(), marked.Bounds(), "the marked screen is as wide as a 540-pixel screenshot")
		for _, p := range step.targets {
			x, y := pixelOf(marked, p)
			assert.True(t, magenta(marked.At(x, y)), "%s: the mark at %v is %v", step.tool, p, marked.At(x, y))
			assert.False(t, magenta(before.At(x, y)), "%s: the unmarked screen at %v is already %v", step.tool, p, before.At(x, y))
		}

		// The console's timeline (read again every 2 s) shows it, and serves the same image.
		base := f.Gateway().HTTP.URL
		farmtest.Eventually(t, 10*time.Second, func() bool {
			status, rows := getAs(t, base+"/console/devices/"+serial+"/timeline", "")
			return status == http.StatusOK && strings.Contains(rows, "data-mark") &&
				strings.Contains(rows, `<a href="/console/devices/`+serial+"/timeline?shot=tasks%2F"+latest.TaskID+"%2F")
		}, "the timeline shows %s's mark", step.tool)
		status, served := getAs(t, base+"/console/devices/"+serial+"/timeline?shot="+out.MarkedScreenshots[0], "")
		require.Equal(t, http.StatusOK, status)
		assert.Equal(t, string(shots[0]), served, "the console serves the kept screen")
	}
	// In a browser, the device page's timeline loads the thumbnails, a link to each full image.
	ctx := consoleBrowser(t)
	browse(t, ctx, chromedp.Navigate(f.Gateway().HTTP.URL+"/devices/"+serial))
	waitPage(t, ctx, pageWait, "the timeline's two marked screens, loaded", `[...document.querySelectorAll('#timeline a[data-mark] img')]
	  .map(i => i.complete && i.naturalWidth === 540 && i.closest('a').href === i.src)`, func(v []bool) bool {
		return len(v) == 2 && v[0] && v[1]
	})
	if os.Getenv("CORRAL_UPDATE_DOCS") != "" { // the docs' picture has the live screen too
		waitPage(t, ctx, pageWait, "the live screen", screenJS(serial), func(v []int) bool { return len(v) == 2 })
		browse(t, ctx, chromedp.ScrollIntoView(`#timeline a[data-mark]`))
		saveDoc(t, ctx, "console-marked.png")
	}

	assert.Equal(t, 2.0, metric(t, f, `corral_marked_screenshots_total{node="n1",outcome="saved"}`))
	assert.Zero(t, metric(t, f, `corral_marked_screenshots_total{node="n1",outcome="failed"}`))

	// anti_risk: the phone is touched near the point, resting a finger's moment.
	var risk struct{ AntiRisk string }
	farmtest.Structured(t, farmtest.MustCall(t, c, "tap_abs_xy", args("serial", serial, "x", 500, "y", 2000, "anti_risk", true)), &risk)
	assert.Equal(t, "applied to 1 touches", risk.AntiRisk)
	log := f.Phone(serial).InputLog()
	last := log[len(log)-1]
	var x, y int
	var held string
	_, err := fmt.Sscanf(last, "tap %d %d hold=%s", &x, &y, &held)
	require.NoError(t, err, last)
	hold, err := time.ParseDuration(held)
	require.NoError(t, err, last)
	assert.InDelta(t, 500, x, 8, last)
	assert.InDelta(t, 2000, y, 8, last)
	assert.True(t, hold >= 40*time.Millisecond && hold < 110*time.Millisecond, "a plain tap rested %s", hold)

	// A tool without a gesture keeps no mark, and says so when asked for one.
	farmtest.MustCall(t, c, "press_button", args("serial", serial, "button", "HOME", "pre_mark_operation", true))
	var latest struct{ TaskID string }
	farmtest.Structured(t, farmtest.MustCall(t, c, "get_latest_task", args("anyTool", true)), &latest)
	var res *mcpgo.CallToolResult
	res, err = farmtest.TryCall(t, c, "get_task_result", args("taskId", latest.TaskID, "markedScreenshots", true))
	require.NoError(t, err)
	require.True(t, res.IsError)
	contains(t, farmtest.Text(res), "kept no marked screens")
}

// screenImage is the device's screen as the screenshot tool gives it, 540 pixels wide.
func screenImage(t *testing.T, c *client.Client, serial string) image.Image {
	t.Helper()
	data, mime := farmtest.Image(farmtest.MustCall(t, c, "screenshot", args("serial", serial, "max_width", 540)))
	require.Equal(t, "image/jpeg", mime)
	b, err := base64.StdEncoding.DecodeString(data)
	require.NoError(t, err)
	img, err := jpeg.Decode(bytes.NewReader(b))
	require.NoError(t, err)
	return img
}

// images are the JPEG images of a result.
func images(t *testing.T, res *mcpgo.CallToolResult) [][]byte {
	t.Helper()
	var out [][]byte
	for _, content := range res.Content {
		if ic, ok := content.(mcpgo.ImageContent); ok {
			require.Equal(t, "image/jpeg", ic.MIMEType)
			b, err := base64.StdEncoding.DecodeString(ic.Data)
			require.NoError(t, err)
			out = append(out, b)
		}
	}
	return out
}

// pixelOf is the pixel of img at relative p.
func pixelOf(img image.Image, p [2]float64) (int, int) {
	b := img.Bounds()
	return b.Min.X + int(p[0]*float64(b.Dx()-1)+0.5), b.Min.Y + int(p[1]*float64(b.Dy()-1)+0.5)
}

// magenta says whether c is the marks' colour as JPEG keeps it.
func magenta(c color.Color) bool {
	r, g, b, _ := c.RGBA()
	return r>>8 > 190 && g>>8 < 90 && b>>8 > 190
}
