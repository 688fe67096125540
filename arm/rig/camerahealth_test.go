package rig

import (
	"context"
	"errors"
	"image"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corral-farm/corral/arm/camera"
	"github.com/corral-farm/corral/arm/grbl"
)

// A rig whose camera stops (its stream refused) says so in its health: unhealthy with
// "camera down: …", so that the farm hands no agent a blind rig, and healthy again once
// frames come. It used to stay online while every screenshot failed.
func TestARigWithoutItsCameraIsUnhealthy(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	tw, addr := servedTwin(t, 4)
	var stopped atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if stopped.Load() {
			http.Error(w, "camera app stopped", http.StatusServiceUnavailable)
			return
		}
		camera.ServeMJPEG(w, r, func(ctx context.Context) (image.Image, error) {
			if stopped.Load() {
				return nil, errors.New("camera app stopped")
			}
			return tw.Camera.Frame(ctx)
		}, camera.StreamOptions{FPS: 10})
	}))
	t.Cleanup(srv.Close)
	cam, err := camera.OpenMJPEG(ctx, srv.URL+"/camera")
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
	reports := make(chan error, 64)
	d.ReportHealth(func(err error) {
		select {
		case reports <- err:
		default: // the test reads the latest ones
		}
	})
	waitHealth := func(what string, ok func(error) bool) error {
		t.Helper()
		for {
			select {
			case err := <-reports:
				if ok(err) {
					return err
				}
			case <-ctx.Done():
				t.Fatalf("no health report of %s", what)
			}
		}
	}
	waitHealth("a rig that sees", func(err error) bool { return err == nil })

	stopped.Store(true)
	err = waitHealth("a rig whose camera stopped", func(err error) bool { return err != nil })
	for _, want := range []string{"camera down", "camera app stopped", "screenshots and looks fail"} {
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("health of a rig whose camera stopped: %q does not say %q", err, want)
		}
	}

	stopped.Store(false)
	waitHealth("the rig once its camera is back", func(err error) bool { return err == nil })
}
