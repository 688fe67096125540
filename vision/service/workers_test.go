//go:build vision

package service

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/vision"
	"github.com/corral-farm/corral/vision/worker"
)

// Vision workers with the real engine (Tesseract, OpenCV), serving as the vision NATS user of a
// farm with NATS auth, asked by a node's NATS user through vision.Client, as a node's tools do.

// realWorker starts a worker: its own engine and NATS connection (a process of its own, as far
// as NATS can tell), serving as the farm's vision user.
func realWorker(t *testing.T, f *farmtest.Farm, name string, hook func(context.Context, string)) (*Service, *nats.Conn, *prometheus.Registry) {
	t.Helper()
	return realWorkerVia(t, f, "", name, hook)
}

// realWorkerVia starts a worker that reaches NATS at url ("": the farm's own), a link the test
// shapes.
func realWorkerVia(t *testing.T, f *farmtest.Farm, url, name string, hook func(context.Context, string)) (*Service, *nats.Conn, *prometheus.Registry) {
	t.Helper()
	eng, err := worker.New(worker.Options{Parallel: 1})
	require.NoError(t, err, "the vision engine does not start: make setup installs Tesseract and OpenCV")
	o := f.Connect(broker.UserName(broker.RoleVision, ""), "corral-vision-"+name)
	if url != "" {
		o.URL = url
	}
	nc, err := broker.Connect(o, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	reg := prometheus.NewRegistry()
	s, err := Start(nc, Options{Engine: eng, Parallel: 1, Instance: name, Metrics: NewMetrics(reg), started: hook,
		Log: slog.New(slog.DiscardHandler)})
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = s.Stop(ctx)
		nc.Close()
		eng.Close()
	})
	return s, nc, reg
}

// nodeClient is a vision client on a node's NATS user.
func nodeClient(t *testing.T, f *farmtest.Farm, attempt time.Duration) *vision.Client {
	t.Helper()
	nc, err := broker.Connect(f.Connect(broker.UserName(broker.RoleNode, "n1"), "test-node"), slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	return vision.NewClient(nc, attempt)
}

func authFarm(t *testing.T) *farmtest.Farm {
	return farmtest.Start(t, farmtest.Options{Nodes: 1, PhonesPerNode: 1, Auth: true, Quiet: true})
}

// screenPNG is a light screen with a line of black text, PNG-encoded.
func screenPNG(t *testing.T, w, h int, text string) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.RGBA{245, 245, 245, 255}), image.Point{}, draw.Src)
	if text != "" {
		ft, err := opentype.Parse(goregular.TTF)
		require.NoError(t, err)
		face, err := opentype.NewFace(ft, &opentype.FaceOptions{Size: 40, DPI: 72, Hinting: font.HintingFull})
		require.NoError(t, err)
		d := font.Drawer{Dst: img, Src: image.Black, Face: face, Dot: fixed.P(30, h/2+15)}
		d.DrawString(text)
	}
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, img))
	return b.Bytes()
}

// Two workers in the queue group share the requests: each answers some.
func TestTwoWorkersShareRequests(t *testing.T) {
	f := authFarm(t)
	_, _, reg1 := realWorker(t, f, "w1", nil)
	_, _, reg2 := realWorker(t, f, "w2", nil)
	client := nodeClient(t, f, 60*time.Second)
	require.NoError(t, client.Ping(t.Context()), "a node's ping of the workers")
	before, after := screenPNG(t, 320, 120, ""), screenPNG(t, 320, 120, "Changed")
	const n = 24
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			res, err := client.Diff(t.Context(), vision.DiffRequest{V: vision.WireVersion, Before: before, After: after})
			if assert.NoError(t, err) {
				assert.True(t, res.Changed, "the engine saw no change")
			}
		})
	}
	wg.Wait()
	one, two := requests(reg1, vision.EndpointDiff, OutcomeOK), requests(reg2, vision.EndpointDiff, OutcomeOK)
	eventually(t, func() bool {
		one, two = requests(reg1, vision.EndpointDiff, OutcomeOK), requests(reg2, vision.EndpointDiff, OutcomeOK)
		return one+two == n
	}, "every diff counted")
	assert.Positive(t, one, "worker 1 answered none of %d", n)
	assert.Positive(t, two, "worker 2 answered none of %d", n)
}

// A worker that dies with a request under way (its NATS connection gone) never answers; the
// client's next attempt reaches the other worker, within the call's deadline.
func TestWorkerKilledMidRequest(t *testing.T) {
	f := authFarm(t)
	held := make(chan struct{}, 1)
	hook := func(ctx context.Context, op string) {
		held <- struct{}{}
		<-ctx.Done() // until the worker stops: the request is lost with it
	}
	_, doomed, _ := realWorker(t, f, "doomed", hook)
	const attempt = 15 * time.Second
	client := nodeClient(t, f, attempt)
	img := screenPNG(t, 480, 120, "Settings")
	type answer struct {
		res vision.OCRResult
		err error
	}
	done := make(chan answer, 1)
	start := time.Now()
	ctx, cancel := context.WithTimeout(t.Context(), 3*attempt)
	defer cancel()
	go func() {
		res, err := client.OCR(ctx, vision.OCRRequest{V: vision.WireVersion, Image: img, Languages: []string{"eng"}})
		done <- answer{res, err}
	}()
	select {
	case <-held: // the only worker has it
	case a := <-done:
		t.Fatalf("answered before the worker died: %+v", a)
	}
	_, _, reg := realWorker(t, f, "survivor", nil)
	doomed.Close() // killed: no answer will come from it
	a := <-done
	require.NoError(t, a.err)
	assert.Less(t, time.Since(start), 3*attempt)
	assert.Equal(t, 480, a.res.Width, "not the engine's answer")
	var text []string
	for _, l := range a.res.Lines {
		text = append(text, l.Text)
	}
	assert.Contains(t, strings.Join(text, " "), "Settings", "the survivor's OCR")
	// The survivor counts its answer after sending it: wait for the count, not the clock.
	eventually(t, func() bool { return requests(reg, vision.EndpointOCR, OutcomeOK) == 1 }, "the survivor counted its answer")
}

// No worker in the farm: vision.ErrNoWorker at once, not after an attempt.
func TestNoWorkerAnswersAtOnce(t *testing.T) {
	f := authFarm(t)
	client := nodeClient(t, f, time.Minute)
	start := time.Now()
	_, err := client.OCR(t.Context(), vision.OCRRequest{V: vision.WireVersion, Image: screenPNG(t, 64, 64, "")})
	require.ErrorIs(t, err, vision.ErrNoWorker)
	assert.Less(t, time.Since(start), 5*time.Second)
}

// Operators see the workers with natscli (as the operator NATS user): ls, info, stats.
func TestOperatorsSeeVisionWorkers(t *testing.T) {
	nats := natscli(t)
	f := authFarm(t)
	realWorker(t, f, "w1", nil)
	run := func(args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, nats, append([]string{"--context", f.Context(broker.UserName(broker.RoleOperator, "")), "--timeout", "5s"}, args...)...)
		home := t.TempDir()
		cmd.Env = []string{"HOME=" + home, "XDG_CONFIG_HOME=" + home, "PATH=/usr/bin:/bin"}
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "nats %s:\n%s", strings.Join(args, " "), out)
		return string(out)
	}
	ls := run("micro", "ls")
	assert.Contains(t, ls, "corral-vision")
	info := run("micro", "info", "corral-vision")
	for _, want := range []string{"corral.v1.vision.ocr", "corral.v1.vision.match", "corral.v1.vision.elements",
		"corral.v1.vision.diff", "corral.v1.vision.annotate", "Queue Group: corral-vision", "instance: w1"} {
		assert.Contains(t, info, want)
	}
	assert.Contains(t, run("micro", "stats", "corral-vision"), "corral-vision")
}

// natscli finds make setup's natscli (.tools/bin, on make's PATH).
func natscli(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("nats")
	if err != nil {
		if os.Getenv("CORRAL_REQUIRE_TOOLS") != "" {
			t.Fatal("nats (natscli) is not installed: run make setup")
		}
		t.Skip("nats (natscli) not installed; make setup installs it")
	}
	return path
}
