package rig

import (
	"context"
	"errors"
	"image"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corral-farm/corral/arm/camera"
	"github.com/corral-farm/corral/arm/grbl"
	"github.com/corral-farm/corral/arm/twin"
)

// streamedTwin serves the twin's camera as an MJPEG stream, whose next frame hangs until its
// client drops the stream while hang is set, and opens it with the given stall timeout. It
// returns the driver of the rig that looks through that stream and the number of streams
// opened so far.
func streamedTwin(ctx context.Context, t *testing.T, tw *twin.Twin, addr string, hang *atomic.Bool, hung chan<- struct{}, stall time.Duration) (*Driver, *httptest.Server, *atomic.Int32) {
	t.Helper()
	var opened atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		opened.Add(1)
		frames := func(ctx context.Context) (image.Image, error) {
			if hang.CompareAndSwap(true, false) {
				hung <- struct{}{}
				<-ctx.Done() // a slow camera: nothing until the client gives up on the stream
				return nil, ctx.Err()
			}
			return tw.Camera.Frame(ctx)
		}
		camera.ServeMJPEG(w, r, frames, camera.StreamOptions{FPS: 10})
	}))
	t.Cleanup(srv.Close)
	cam, err := camera.OpenMJPEG(ctx, srv.URL+"/camera", camera.WithStallTimeout(stall))
	if err != nil {
		t.Fatal(err)
	}
	c, err := grbl.DialTCP(ctx, addr, twinLink()...)
	if err != nil {
		t.Fatal(err)
	}
	d, err := New(Config{Serial: tw.Phone.Info().Serial}, c, cam, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return d, srv, &opened
}

// A camera whose stream stalls past the MJPEG client's stall timeout (a slow camera: a loaded
// machine's `corral sim arm`) is down until the client has opened the stream again and a frame
// came. The rig looks on through that, and finds the page in the frames that come after.
func TestFindScreenWaitsForACameraBackFromAStall(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	tw, addr := servedTwin(t, 2)
	var hang atomic.Bool
	hung := make(chan struct{}, 1)
	// The stall timeout outlasts the twin's render of a frame under -race on a loaded machine
	// (10 s and more): with 1 s the client gave up on each reopened stream before its first
	// frame was drawn, for ever (a clean clone's make test: down for 45 s).
	d, _, opened := streamedTwin(ctx, t, tw, addr, &hang, hung, 20*time.Second)
	hang.Store(true)
	select {
	case <-hung:
	case <-ctx.Done():
		t.Fatal("the stream never asked for the frame that hangs")
	}
	_, _, stop, err := tw.ShowCalibration(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	// Longer than pageTimeout: under -race on a loaded machine (a clean clone's make test)
	// opening the stream again and drawing its first frame took 10.3 s. What is tested is that
	// the search looks on through the stall, not the stall's length.
	quad, err := d.findScreen(ctx, 90*time.Second)
	if err != nil {
		t.Fatalf("the rig gave up on a camera that stalled and came back: %v", err)
	}
	if n := opened.Load(); n < 2 {
		t.Errorf("the stream was opened %d times; the stall should have made the client open it again", n)
	}
	for i, want := range tw.Camera.Conditions().Quad {
		if got := quad[i]; got.Dist(want) > 3 {
			t.Errorf("corner %d found at %v, the camera sees it at %v", i, got, want)
		}
	}
}

// A camera that stays down fails the search, saying the camera is down, once it has been
// down for the search's time: not at the first sign of it.
func TestFindScreenGivesUpOnACameraThatStaysDown(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tw, addr := servedTwin(t, 2)
	var hang atomic.Bool
	d, srv, _ := streamedTwin(ctx, t, tw, addr, &hang, make(chan struct{}, 1), 10*time.Second)
	srv.CloseClientConnections()
	srv.Close() // the camera's app stopped: the stream ends, and opening it again fails
	for {
		if _, err := d.cam.Frame(ctx); errors.Is(err, camera.ErrDown) {
			break
		} else if ctx.Err() != nil {
			t.Fatal("the camera never went down")
		}
	}
	const timeout = time.Second
	start := time.Now()
	_, err := d.findScreen(ctx, timeout)
	if took := time.Since(start); !errors.Is(err, camera.ErrDown) || took < timeout {
		t.Fatalf("findScreen: %v after %v; want the camera down, after it was down for %v", err, took, timeout)
	}
}
