package tools

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/sim"
	"github.com/corral-farm/corral/vision"
)

// fakeVision answers as a vision worker would; unset functions answer vision.ErrNoWorker.
type fakeVision struct {
	OCRFn      func(req vision.OCRRequest) (vision.OCRResult, error)
	MatchFn    func(req vision.MatchRequest) (vision.MatchResult, error)
	ElementsFn func(req vision.ElementsRequest) (vision.ElementsResult, error)

	mu     sync.Mutex
	calls  int // questions about a screen
	probes int // asking whether a worker listens (visionReady)
}

func (f *fakeVision) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

// Ping answers as workers would: one listens when the fake has any answer to give.
func (f *fakeVision) Ping(context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.probes++
	if f.OCRFn == nil && f.MatchFn == nil && f.ElementsFn == nil {
		return vision.ErrNoWorker
	}
	return nil
}

func (f *fakeVision) OCR(_ context.Context, req vision.OCRRequest) (vision.OCRResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.OCRFn == nil {
		return vision.OCRResult{}, vision.ErrNoWorker
	}
	return f.OCRFn(req)
}

func (f *fakeVision) Match(_ context.Context, req vision.MatchRequest) (vision.MatchResult, error) {
	f.mu.Lock()
	f.calls++
	f.mu.Unlock()
	if f.MatchFn == nil {
		return vision.MatchResult{}, vision.ErrNoWorker
	}
	return f.MatchFn(req)
}

func (f *fakeVision) Elements(_ context.Context, req vision.ElementsRequest) (vision.ElementsResult, error) {
	f.mu.Lock()
	f.calls++
	f.mu.Unlock()
	if f.ElementsFn == nil {
		return vision.ElementsResult{}, vision.ErrNoWorker
	}
	return f.ElementsFn(req)
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
}

// Not in the tree, no worker: an error at once that says to start corral vision; with
// ignore_NotFoundError, a result that says so.
func TestTapOCRNotFoundWithoutWorker(t *testing.T) {
	p := simIn(t, "com.corral.shop")
	v := &fakeVision{}
	_, err := runWith(t, OpsConfig{Vision: v}, "tap_ocr", p, `{"text":"Checkout","max_retry_times":5}`)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "corral vision")
	assert.ErrorIs(t, err, vision.ErrNoWorker)
	// No retries: one question whether a worker listens, no screenshot sent (counts, not a clock).
	assert.Equal(t, 0, v.count(), "no screenshot went to the workers")
	assert.Equal(t, 1, v.probes, "asked once whether a worker listens")

	out, err := runWith(t, OpsConfig{Vision: v}, "tap_ocr", p, `{"text":"Checkout","ignore_NotFoundError":true}`)
	require.NoError(t, err)
	d := dataOf(t, out)
	assert.Equal(t, false, d["tapped"])
	assert.Contains(t, d["message"], "ignore_NotFoundError")
	assert.Contains(t, d["message"], "corral vision")
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

// max_retry_times: looks again, interval apart, until the text shows.
func TestTapOCRRetries(t *testing.T) {
	d := newFake() // no UI tree: OCR only
	n := 0
	v := &fakeVision{OCRFn: func(req vision.OCRRequest) (vision.OCRResult, error) {
		n++
		if n < 3 {
			return vision.OCRResult{}, nil
		}
		return ocrLine(req, "Sign in", 0.91, image.Rect(100, 200, 300, 260)), nil
	}}
	out, err := runWith(t, OpsConfig{Vision: v}, "tap_ocr", d, `{"text":"Sign in","max_retry_times":1,"interval":0.01}`)
	require.Error(t, err, "two looks are not enough")
	assert.Equal(t, 2, v.count())
	assert.Contains(t, err.Error(), "not on screen")

	n = 0
	out, err = runWith(t, OpsConfig{Vision: v}, "tap_ocr", d, `{"text":"Sign in","max_retry_times":2,"interval":0.01}`)
	require.NoError(t, err)
	r := out.Data.(TapTextResult)
	assert.Equal(t, SourceOCR, r.Source)
	assert.Equal(t, 0.91, r.Confidence)
	assert.Equal(t, device.Point{X: 200, Y: 230}, *r.Point)
}

// ocrLine is an OCR answer with one line of words, boxes split evenly over box.
func ocrLine(_ vision.OCRRequest, text string, conf float64, box image.Rectangle) vision.OCRResult {
	words := strings.Fields(text)
	l := vision.Line{Text: text, Confidence: conf, Box: vision.Box{X: box.Min.X, Y: box.Min.Y, W: box.Dx(), H: box.Dy()}}
	w := box.Dx() / len(words)
	for i, s := range words {
		l.Words = append(l.Words, vision.Word{Text: s, Confidence: conf, Box: vision.Box{X: box.Min.X + i*w, Y: box.Min.Y, W: w, H: box.Dy()}})
	}
	return vision.OCRResult{V: 1, Width: 1080, Height: 2400, Lines: []vision.Line{l}}
}

// OCR: the tap lands on the words matched, not the middle of the line; the screenshot goes as
// PNG within the contract's bound.
func TestTapOCRNarrowsToTheWords(t *testing.T) {
	d := newFake()
	v := &fakeVision{OCRFn: func(req vision.OCRRequest) (vision.OCRResult, error) {
		if _, err := png.DecodeConfig(bytes.NewReader(req.Image)); err != nil || len(req.Image) > vision.MaxImageBytes {
			return vision.OCRResult{}, &vision.Error{Code: vision.CodeBadInput, Message: "not a PNG"}
		}
		return ocrLine(req, "Total $12.99 Checkout now", 0.8, image.Rect(0, 1000, 1000, 1100)), nil
	}}
	out, err := runWith(t, OpsConfig{Vision: v}, "tap_ocr", d, `{"text":"Checkout"}`)
	require.NoError(t, err)
	r := out.Data.(TapTextResult)
	assert.Equal(t, "Checkout", r.Text)
	assert.Equal(t, device.Point{X: 625, Y: 1050}, *r.Point, "the third of four words")
	assert.Equal(t, []float64{0.463, 0.417, 0.694, 0.458}, r.BBox)
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
	_, err := runWith(t, OpsConfig{Shared: true, Vision: &fakeVision{}}, "tap_cv", simIn(t, ""), `{"imagePath":"/etc/passwd"}`)
	require.Error(t, err)
	assert.Equal(t, broker.CodeBadInput, ErrorCode(err))
	assert.Contains(t, err.Error(), "shared farm")
}

func TestTapCVTapsTheMatch(t *testing.T) {
	tmpl := image.NewRGBA(image.Rect(0, 0, 40, 40))
	for i := range tmpl.Pix {
		tmpl.Pix[i] = byte(i * 7)
	}
	var buf bytes.Buffer
	require.NoError(t, png.Encode(&buf, tmpl))
	var got vision.MatchRequest
	v := &fakeVision{MatchFn: func(req vision.MatchRequest) (vision.MatchResult, error) {
		got = req
		return vision.MatchResult{Matches: []vision.Match{{Box: vision.Box{X: 500, Y: 900, W: 60, H: 60}, Score: 0.934, Scale: 1.5}}}, nil
	}}
	p := simIn(t, "")
	out, err := runWith(t, OpsConfig{Vision: v}, "tap_cv", p,
		`{"imagePath":"data:image/png;base64,`+base64.StdEncoding.EncodeToString(buf.Bytes())+`","threshold":0.9}`)
	require.NoError(t, err)
	r := out.Data.(TapCVResult)
	assert.Equal(t, device.Point{X: 530, Y: 930}, *r.Point)
	assert.Equal(t, 0.93, r.Confidence)
	assert.Equal(t, 0.9, got.Threshold)
	assert.Equal(t, buf.Bytes(), got.Template)

	_, err = runOp(t, "tap_cv", p, `{"imagePath":"`+base64.StdEncoding.EncodeToString(buf.Bytes())+`"}`)
	require.Error(t, err, "no worker")
	assert.ErrorIs(t, err, vision.ErrNoWorker)
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

	p = simIn(t, "com.corral.shop")
	out, err = runOp(t, "swipe_to_tap_text", p, `{"text":"Item 99","max_retry_times":2,"ignore_NotFoundError":true,"interval":0.01}`)
	require.NoError(t, err)
	assert.Equal(t, 2, out.Data.(TapTextResult).Swipes)
	assert.False(t, out.Data.(TapTextResult).Tapped)
}

func TestSwipeToTapTexts(t *testing.T) {
	p := simIn(t, "com.corral.shop")
	out, err := runOp(t, "swipe_to_tap_texts", p, `{"texts":["Checkout","Item 30"],"interval":0.01}`)
	require.NoError(t, err)
	r := out.Data.(SwipeToTapTextsResult)
	assert.Equal(t, "Item 30", r.FoundText)
	assert.Equal(t, []string{"Checkout", "Item 30"}, r.Texts)
	assert.True(t, showing(t, p, `text="Item 30"`) && showing(t, p, itemPage))
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

// peek without a UI tree lists what the vision worker sees, with its confidences; without a
// worker it says how to get one.
func TestPeekFallsBackToVision(t *testing.T) {
	p := simIn(t, "com.corral.shop")
	p.HideTree(true)
	v := &fakeVision{ElementsFn: func(req vision.ElementsRequest) (vision.ElementsResult, error) {
		return vision.ElementsResult{Width: 1080, Height: 2400, Elements: []vision.Element{
			{ID: "t3f9c", Kind: "text", Text: "Item 1", Box: vision.Box{X: 200, Y: 300, W: 300, H: 60}, Confidence: 0.87},
			{ID: "i81a0", Kind: "icon", Box: vision.Box{X: 40, Y: 280, W: 120, H: 120}, Confidence: 0.62},
		}}, nil
	}}
	out, err := runWith(t, OpsConfig{Vision: v}, "peek", p, `{}`)
	require.NoError(t, err)
	r := out.Data.(PeekResult)
	assert.Equal(t, SourceVision, r.Source)
	assert.Equal(t, 2, r.Elements)
	assert.Contains(t, r.Listing, `t3f9c [text] "Item 1" [0.185,0.125,0.463,0.150] 0.87`)
	assert.Contains(t, r.Listing, `i81a0 [icon] "" `)
	assert.Contains(t, r.Listing, "0.62")

	out, err = runOp(t, "peek", p, `{}`)
	require.NoError(t, err)
	r = out.Data.(PeekResult)
	assert.Empty(t, r.Source)
	assert.Zero(t, r.Elements)
	assert.Contains(t, r.Message, "no element listing: read the image")
	assert.Contains(t, r.Message, "corral vision")

	p.HideTree(false)
	out, err = runWith(t, OpsConfig{Vision: v}, "peek", p, `{}`)
	require.NoError(t, err)
	assert.Equal(t, SourceUITree, out.Data.(PeekResult).Source, "a tree that lists elements is used first")
	assert.Contains(t, out.Data.(PeekResult).Listing, " 1.00")
}
