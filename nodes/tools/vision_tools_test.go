package tools

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/broker/embedded"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/sim"
	"github.com/corral-farm/corral/vision"
)

// emptyFarm is a node's real vision client (vision.Client) on a real, in-process NATS server that
// no vision worker has joined: what a farm without `corral vision` gives the tools. The tests
// that need a worker's answers run one for real (vision_worker_tools_test.go, -tags vision);
// this build has no cgo, so here the tools can only find that none listens.
func emptyFarm(t *testing.T) *countedVision {
	t.Helper()
	ns, err := embedded.Start(embedded.Options{Port: -1, StoreDir: t.TempDir()}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	nc, err := nats.Connect(ns.ClientURL())
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	return &countedVision{Vision: vision.NewClient(nc, time.Minute)}
}

// countedVision passes every question to a real client and counts them, so a test can say
// what the tools asked (a probe whether a worker listens, a screen sent) without timing them.
type countedVision struct {
	Vision
	probes, screens atomic.Int64
}

func (c *countedVision) Ping(ctx context.Context) error {
	c.probes.Add(1)
	return c.Vision.Ping(ctx)
}

func (c *countedVision) OCR(ctx context.Context, req vision.OCRRequest) (vision.OCRResult, error) {
	c.screens.Add(1)
	return c.Vision.OCR(ctx, req)
}

func (c *countedVision) Match(ctx context.Context, req vision.MatchRequest) (vision.MatchResult, error) {
	c.screens.Add(1)
	return c.Vision.Match(ctx, req)
}

func (c *countedVision) Elements(ctx context.Context, req vision.ElementsRequest) (vision.ElementsResult, error) {
	c.screens.Add(1)
	return c.Vision.Elements(ctx, req)
}

// runWith runs op name on d with a node configured with c.
func runWith(t *testing.T, c OpsConfig, name string, d device.Driver, args string) (Output, error) {
	t.Helper()
	return DefaultOpsWith(c)[name].Run(context.Background(), &Task{Driver: d, Args: json.RawMessage(args)})
}

// dataOf returns out's data as a JSON object.
func dataOf(t *testing.T, out Output) map[string]any {
	t.Helper()
	b, err := json.Marshal(out.Data)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}

// simIn returns a sim phone with pkg in front.
func simIn(t *testing.T, pkg string) *sim.Phone {
	t.Helper()
	p := sim.New("sim-vision")
	t.Cleanup(func() { p.Close() })
	if pkg != "" {
		require.NoError(t, p.LaunchApp(context.Background(), pkg))
	}
	return p
}

// showing says whether the phone's UI tree holds s.
func showing(t *testing.T, p *sim.Phone, s string) bool {
	t.Helper()
	src, err := p.Source(context.Background())
	require.NoError(t, err)
	return strings.Contains(src, s)
}

const itemPage = "A fine simulated item"

// tap_ocr finds the text in the sim's UI tree and taps it: no vision worker needed.
func TestTapOCRFindsTextInTheUITree(t *testing.T) {
	p := simIn(t, "com.corral.shop")
	out, err := runOp(t, "tap_ocr", p, `{"text":"Item 3"}`)
	require.NoError(t, err)
	d := dataOf(t, out)
	assert.Equal(t, SourceUITree, d["source"])
	assert.Equal(t, "Item 3", d["text"])
	assert.Equal(t, true, d["tapped"])
	assert.EqualValues(t, 1, d["confidence"])
	assert.Len(t, d["bbox"], 4)
	assert.True(t, showing(t, p, itemPage) && showing(t, p, `text="Item 3"`), "the tap opened Item 3's page")
}

// An element is found by its content-desc too when it has a text ("Clear" described as "Clear
// note"), as the docs and corral run's expect have it; the text reported is what matched.
func TestTapOCRFindsTheContentDesc(t *testing.T) {
	p := simIn(t, "com.corral.notes")
	require.NoError(t, p.InputText(context.Background(), "draft"))
	out, err := runOp(t, "tap_ocr", p, `{"text":"Clear note"}`)
	require.NoError(t, err)
	assert.Equal(t, "Clear note", dataOf(t, out)["text"])
	assert.Empty(t, p.Note(), "the tap did not clear the note")
	out, err = runOp(t, "tap_ocr", p, `{"text":"Clear"}`)
	require.NoError(t, err)
	assert.Equal(t, "Clear", dataOf(t, out)["text"], "the text, a whole match, goes before a part of the description")
}

// "Item 1" is the element reading Item 1, not Item 10 to 13 that contain it.
func TestTapOCRPrefersWholeText(t *testing.T) {
	p := simIn(t, "com.corral.shop")
	out, err := runOp(t, "tap_ocr", p, `{"text":"Item 1"}`)
	require.NoError(t, err)
	assert.Equal(t, "Item 1", dataOf(t, out)["text"])
	assert.True(t, showing(t, p, `text="Item 1"`) && !showing(t, p, `text="Item 10"`))
}

func TestTapOCRRegexAndIndex(t *testing.T) {
	p := simIn(t, "com.corral.shop")
	out, err := runOp(t, "tap_ocr", p, `{"text":"^Item 1\\d$","regex":true}`)
	require.NoError(t, err)
	assert.Equal(t, "Item 10", dataOf(t, out)["text"], "the first match in reading order")

	p = simIn(t, "com.corral.shop")
	out, err = runOp(t, "tap_ocr", p, `{"text":"^Item \\d$","regex":true,"index":2}`)
	require.NoError(t, err)
	assert.Equal(t, "Item 3", dataOf(t, out)["text"], "index 2 is the third")

	p = simIn(t, "com.corral.shop")
	out, err = runOp(t, "tap_ocr", p, `{"text":"^Item \\d$","regex":true,"index":-1}`)
	require.NoError(t, err)
	assert.Equal(t, "Item 9", dataOf(t, out)["text"], "index -1 is the last")

	p = simIn(t, "com.corral.shop")
	_, err = runOp(t, "tap_ocr", p, `{"text":"^Item \\d$","regex":true,"index":40}`)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "9 matches")
}

func TestTapOCROffset(t *testing.T) {
	p := simIn(t, "com.corral.shop")
	plain, err := runOp(t, "tap_ocr", p, `{"text":"Item 2"}`)
	require.NoError(t, err)
	at := plain.Data.(TapTextResult).Point

	p = simIn(t, "com.corral.shop")
	moved, err := runOp(t, "tap_ocr", p, `{"text":"Item 2","tap_offset":[-30,40]}`)
	require.NoError(t, err)
	assert.Equal(t, device.Point{X: at.X - 30, Y: at.Y + 40}, *moved.Data.(TapTextResult).Point)
	assert.Contains(t, strings.Join(p.InputLog(), "\n"), fmt.Sprintf("tap %d %d", at.X-30, at.Y+40))

	// Off the screen: refused, nothing tapped (it was moved onto the edge, tapping what was there).
	p = simIn(t, "com.corral.shop")
	before := len(p.InputLog())
	_, err = runOp(t, "tap_ocr", p, `{"text":"Item 2","tap_offset":[-2000,0]}`)
	require.Error(t, err)
	assert.Equal(t, broker.CodeBadInput, ErrorCode(err))
	assert.Contains(t, err.Error(), fmt.Sprintf("tap_offset [-2000,0] from the centre (%d, %d)", at.X, at.Y))
	assert.Contains(t, err.Error(), "outside the 1080x2400 screen: nothing tapped")
	assert.Len(t, p.InputLog(), before, "nothing tapped")
}

// Not in the tree, no worker: an error at once that says to start corral vision; with
// ignore_NotFoundError the same error, for nothing looked where only OCR sees
// (TestIgnoreNotFoundDoesNotHideNoVision).
func TestTapOCRNotFoundWithoutWorker(t *testing.T) {
	p := simIn(t, "com.corral.shop")
	v := emptyFarm(t)
	_, err := runWith(t, OpsConfig{Vision: v}, "tap_ocr", p, `{"text":"Checkout","max_retry_times":5}`)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "corral vision")
	assert.ErrorIs(t, err, vision.ErrNoWorker)
	// No retries: one question whether a worker listens, no screenshot sent (counts, not a clock).
	assert.EqualValues(t, 0, v.screens.Load(), "no screenshot went to the workers")
	assert.EqualValues(t, 1, v.probes.Load(), "asked once whether a worker listens")

	_, err = runWith(t, OpsConfig{Vision: v}, "tap_ocr", p, `{"text":"Checkout","ignore_NotFoundError":true}`)
	require.Error(t, err)
	assert.ErrorIs(t, err, vision.ErrNoWorker)
}

// A hidden tree and no worker: nothing can look, whatever ignore_NotFoundError says.
func TestTapOCRBlindIsAnErrorAtOnce(t *testing.T) {
	p := simIn(t, "com.corral.shop")
	p.HideTree(true)
	_, err := runOp(t, "tap_ocr", p, `{"text":"Item 3","ignore_NotFoundError":true}`)
	require.Error(t, err)
	assert.ErrorIs(t, err, vision.ErrNoWorker)
	assert.Contains(t, err.Error(), "lists no text")
	assert.False(t, showing(t, p, itemPage))
}

func TestVisionToolsRefuseBadInput(t *testing.T) {
	p := simIn(t, "com.corral.shop")
	big := image.NewRGBA(image.Rect(0, 0, 1200, 100))
	var buf bytes.Buffer
	require.NoError(t, png.Encode(&buf, big))
	wide := base64.StdEncoding.EncodeToString(buf.Bytes())
	for _, c := range []struct{ tool, args, want string }{
		{"tap_ocr", `{"text":"(unclosed","regex":true}`, "does not compile"},
		{"tap_ocr", `{"text":"(a+)+\\1","regex":true}`, "does not compile"}, // backreferences: RE2 has none
		{"tap_ocr", `{"text":"   "}`, "text is required"},
		{"tap_ocr", `{"text":"` + strings.Repeat("x", 10_000) + `"}`, "at most 1000"},
		{"tap_ocr", `{"text":"ok","index":1000}`, "index must be between"},
		{"swipe_to_tap_text", `{"text":"[","regex":true}`, "does not compile"},
		{"swipe_to_tap_texts", `{"texts":[]}`, "texts is required"},
		{"swipe_to_tap_texts", `{"texts":["OK",""]}`, "texts[1] is empty"},
		{"swipe_to_tap_texts", `{"texts":["` + strings.Repeat("y", 2000) + `"]}`, "at most 1000"},
		{"swipe_to_tap_app", `{"appName":""}`, "appName is required"},
		{"tap_cv", `{"imagePath":"` + wide + `"}`, "larger than the screen"},
		{"tap_cv", `{"imagePath":"` + base64.StdEncoding.EncodeToString([]byte(strings.Repeat("not an image ", 20))) + `"}`, "not an image"},
		{"tap_cv", `{"imagePath":"data:image/png;base64,@@@notbase64@@@"}`, "valid base64"},
		{"tap_cv", `{"imagePath":"data:image/png,rawbytes"}`, "without base64"},
		{"tap_cv", `{"imagePath":"/no/such/template.png"}`, "no such file"},
		{"tap_cv", `{"imagePath":"x.png","threshold":2}`, "threshold must be between"},
	} {
		_, err := runOp(t, c.tool, p, c.args)
		if assert.Error(t, err, "%s %.80s", c.tool, c.args) {
			assert.Equal(t, broker.CodeBadInput, ErrorCode(err), "%s %.80s: %v", c.tool, c.args, err)
			assert.Contains(t, err.Error(), c.want, "%s %.80s", c.tool, c.args)
		}
	}
	assert.False(t, showing(t, p, itemPage), "nothing was tapped")
}

// A shared node reads no template files for callers.
func TestTapCVReadsNoFilesOnASharedNode(t *testing.T) {
	_, err := runWith(t, OpsConfig{Shared: true, Vision: emptyFarm(t)}, "tap_cv", simIn(t, ""), `{"imagePath":"/etc/passwd"}`)
	require.Error(t, err)
	assert.Equal(t, broker.CodeBadInput, ErrorCode(err))
	assert.Contains(t, err.Error(), "shared farm")
}

// tap_cv with no worker: vision.ErrNoWorker, nothing tapped. A match found and tapped is
// TestWorkerTapCVTapsTheMatch's (-tags vision, a real worker).
func TestTapCVWithoutWorker(t *testing.T) {
	tmpl := image.NewRGBA(image.Rect(0, 0, 40, 40))
	for i := range tmpl.Pix {
		tmpl.Pix[i] = byte(i * 7)
	}
	var buf bytes.Buffer
	require.NoError(t, png.Encode(&buf, tmpl))
	p := simIn(t, "com.corral.shop")
	v := emptyFarm(t)
	_, err := runWith(t, OpsConfig{Vision: v}, "tap_cv", p, `{"imagePath":"`+base64.StdEncoding.EncodeToString(buf.Bytes())+`","threshold":0.9}`)
	require.Error(t, err, "no worker")
	assert.ErrorIs(t, err, vision.ErrNoWorker)
	assert.Contains(t, err.Error(), "corral vision")
	assert.EqualValues(t, 0, v.screens.Load(), "no screenshot went to the workers")
	assert.False(t, showing(t, p, itemPage), "nothing was tapped")
}

// swipe_to_tap_text swipes the Shop's list until Item 42 shows, then taps it.
func TestSwipeToTapTextOnTheSimShop(t *testing.T) {
	p := simIn(t, "com.corral.shop")
	require.False(t, showing(t, p, `text="Item 42"`))
	out, err := runOp(t, "swipe_to_tap_text", p, `{"text":"Item 42","interval":0.01}`)
	require.NoError(t, err)
	r := out.Data.(TapTextResult)
	assert.Equal(t, "Item 42", r.Text)
	assert.Equal(t, SourceUITree, r.Source)
	assert.Positive(t, r.Swipes)
	assert.True(t, showing(t, p, itemPage) && showing(t, p, `text="Item 42"`))

	// Past the end of the list: it stops when a swipe moves nothing, before max_retry_times.
	p = simIn(t, "com.corral.shop")
	_, err = runOp(t, "swipe_to_tap_text", p, `{"text":"Item 99","max_retry_times":50,"interval":0.01}`)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Item 99")
	swipes := strings.Count(strings.Join(p.InputLog(), "\n"), "swipe ")
	assert.Less(t, swipes, 20, "stopped at the end of the list")

	// Not in the tree after max_retry_times swipes, and no worker to read the screen: not
	// "not found", so ignore_NotFoundError does not let it pass.
	p = simIn(t, "com.corral.shop")
	_, err = runOp(t, "swipe_to_tap_text", p, `{"text":"Item 99","max_retry_times":2,"ignore_NotFoundError":true,"interval":0.01}`)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "after 2 swipes")
	assert.ErrorIs(t, err, vision.ErrNoWorker)
}

func TestSwipeToTapTexts(t *testing.T) {
	p := simIn(t, "com.corral.shop")
	out, err := runOp(t, "swipe_to_tap_texts", p, `{"texts":["Checkout","Item 30"],"interval":0.01}`)
	require.NoError(t, err)
	r := out.Data.(SwipeToTapTextsResult)
	assert.Equal(t, "Item 30", r.FoundText)
	assert.Equal(t, []string{"Checkout", "Item 30"}, r.Texts)
	assert.True(t, showing(t, p, `text="Item 30"`) && showing(t, p, itemPage))

	// foundText is the text found and tapped, as the screen shows it, not the query.
	p = simIn(t, "com.corral.shop")
	out, err = runOp(t, "swipe_to_tap_texts", p, `{"texts":["Nope","tem 30"],"interval":0.01}`)
	require.NoError(t, err)
	r = out.Data.(SwipeToTapTextsResult)
	assert.Equal(t, "Item 30", r.FoundText)
	assert.Contains(t, r.Message, `tapped "Item 30"`)
}

func TestSwipeToTapApp(t *testing.T) {
	p := simIn(t, "com.corral.notes")
	out, err := runOp(t, "swipe_to_tap_app", p, `{"appName":"Shop","interval":0.01}`)
	require.NoError(t, err)
	r := out.Data.(SwipeToTapAppResult)
	assert.Equal(t, "Shop", r.AppName)
	assert.Equal(t, 0, r.Swipes, "the home screen shows it at once")
	fg, _ := p.ForegroundApp(context.Background())
	assert.Equal(t, "com.corral.shop", fg)

	_, err = runOp(t, "swipe_to_tap_app", p, `{"appName":"Nope","interval":0.01}`)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `app "Nope"`)
}

// peek without a UI tree and no worker says how to get one; with a tree, the tree is used
// without asking the workers. What a worker lists is TestWorkerPeekFallsBackToVision's (-tags vision).
func TestPeekWithoutWorker(t *testing.T) {
	p := simIn(t, "com.corral.shop")
	p.HideTree(true)
	v := emptyFarm(t)
	out, err := runWith(t, OpsConfig{Vision: v}, "peek", p, `{}`)
	require.NoError(t, err)
	r := out.Data.(PeekResult)
	assert.Empty(t, r.Source)
	assert.Zero(t, r.Elements)
	assert.Contains(t, r.Message, "no element listing: read the image")
	assert.Contains(t, r.Message, "corral vision")

	p.HideTree(false)
	before := v.probes.Load() + v.screens.Load()
	out, err = runWith(t, OpsConfig{Vision: v}, "peek", p, `{}`)
	require.NoError(t, err)
	assert.Equal(t, SourceUITree, out.Data.(PeekResult).Source, "a tree that lists elements is used first")
	assert.Contains(t, out.Data.(PeekResult).Listing, " 1.00")
	assert.Equal(t, before, v.probes.Load()+v.screens.Load(), "the workers were not asked")
}
