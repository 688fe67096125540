// Package camsim is the simulated overhead camera of an arm rig's digital twin: it renders
// a phone's screen through lens conditions (perspective, blur, glare, noise, JPEG) on every
// Frame, and serves itself as an MJPEG stream over HTTP, so the rig reads it through the
// real camera client.
package camsim

import (
	"context"
	"errors"
	"fmt"
	"image"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/corral-farm/corral/arm/camera"
	"github.com/corral-farm/corral/internal/lens"
)

// Camera is a simulated camera over a screen.
type Camera struct {
	screen func(ctx context.Context) (image.Image, error)

	mu      sync.Mutex
	c       lens.Conditions
	closed  bool
	servers []*http.Server
	kept    frames        // cache.go
	lag     int           // lag.go
	queue   []*image.RGBA // the frames rendered, not yet handed out (lag.go)

	// rendering is held by the render in progress: a stream opened again while its last frame
	// still renders (a slow camera its client gave up on) waits for it and finds it kept,
	// rather than render it again beside it, which made each render slower and each stream
	// stall again on a loaded machine.
	rendering chan struct{}
	// life ends with Close: a frame still rendering for the next caller (take) stops then.
	life    context.Context
	endLife context.CancelFunc
}

var _ camera.Source = (*Camera)(nil)

// New is a camera that sees screen under the conditions c (checked on each Frame).
func New(screen func(ctx context.Context) (image.Image, error), c lens.Conditions) *Camera {
	life, endLife := context.WithCancel(context.Background())
	return &Camera{screen: screen, c: c, rendering: make(chan struct{}, 1), life: life, endLife: endLife}
}

// Conditions are the camera's conditions: its ground truth.
func (k *Camera) Conditions() lens.Conditions {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.c
}

// SetConditions moves the camera (or changes its light) from the next frame on.
func (k *Camera) SetConditions(c lens.Conditions) error {
	if err := c.Check(); err != nil {
		return err
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.c = c
	return nil
}

// Frame renders the screen as the camera sees it now (or SetLag frames ago).
func (k *Camera) Frame(ctx context.Context) (image.Image, error) {
	frame, err := k.render(ctx)
	if err != nil {
		return nil, err
	}
	return clone(frame), nil
}

// render is Frame's frame, shared with the other callers (cache.go): a stream encodes it
// again only when it is not the very frame it sent last.
func (k *Camera) render(ctx context.Context) (*image.RGBA, error) {
	k.mu.Lock()
	c, closed := k.c, k.closed
	k.mu.Unlock()
	if closed {
		return nil, camera.ErrClosed
	}
	select {
	case k.rendering <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("camsim: %w", ctx.Err())
	}
	if err := ctx.Err(); err != nil {
		<-k.rendering
		return nil, fmt.Errorf("camsim: %w", err)
	}
	// The frame is taken on its own goroutine, which lets go of the camera when it is done: a
	// caller whose ctx ends first gets ctx's error at once, and the render goes on, as a real
	// camera keeps taking frames, for the next caller to find kept. The phone's screen and the
	// render take seconds under -race on a loaded machine, and take no ctx: a rig's screenshot
	// with a short deadline that waited for them ran past its grace and made the rig unhealthy.
	took := make(chan taken, 1)
	go func() {
		defer func() { <-k.rendering }()
		frame, err := k.take(ctx, c)
		took <- taken{frame, err}
	}()
	select {
	case r := <-took:
		if r.err != nil {
			return nil, r.err
		}
		if err := ctx.Err(); err != nil { // taken just as the caller stopped waiting
			return nil, fmt.Errorf("camsim: %w", err)
		}
		k.mu.Lock()
		defer k.mu.Unlock()
		return k.delay(r.frame), nil
	case <-ctx.Done():
		return nil, fmt.Errorf("camsim: %w (the frame is still being taken, for the next caller)", ctx.Err())
	}
}

// taken is what take gave.
type taken struct {
	frame *image.RGBA
	err   error
}

// take is the frame of the phone's screen under c: the one kept, or rendered and kept.
func (k *Camera) take(ctx context.Context, c lens.Conditions) (*image.RGBA, error) {
	screen, err := k.screen(ctx)
	if err != nil {
		return nil, fmt.Errorf("camsim: the phone's screen: %w", err)
	}
	k.mu.Lock()
	frame := k.kept.find(screen, c)
	k.mu.Unlock()
	if frame != nil {
		return frame, nil
	}
	if frame, err = lens.RenderContext(k.life, screen, c); err != nil {
		return nil, fmt.Errorf("camsim: %w", err)
	}
	k.mu.Lock()
	k.kept.keep(screen, c, frame)
	k.mu.Unlock()
	return frame, nil
}

// Handler serves the camera as an MJPEG stream (5 frames a second at most; a frame that did
// not change is not encoded again).
func (k *Camera) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		frames := func(ctx context.Context) (image.Image, error) {
			frame, err := k.render(ctx)
			if err != nil {
				return nil, err
			}
			return frame, nil
		}
		camera.ServeMJPEG(w, r, frames, camera.StreamOptions{FPS: 5, Quality: 90})
	})
}

// Serve serves the MJPEG stream at addr (host:port, port 0 for any) until Close, and says
// the stream's URL.
func (k *Camera) Serve(addr string) (string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("camsim: listen on %s: %w", addr, err)
	}
	srv := &http.Server{Handler: k.Handler(), ReadHeaderTimeout: 10 * time.Second}
	k.mu.Lock()
	if k.closed {
		k.mu.Unlock()
		_ = ln.Close()
		return "", camera.ErrClosed
	}
	k.servers = append(k.servers, srv)
	k.mu.Unlock()
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String() + "/", nil
}

// Close stops the camera and its streams.
func (k *Camera) Close() error {
	k.mu.Lock()
	servers := k.servers
	k.servers, k.closed = nil, true
	k.mu.Unlock()
	k.endLife()
	var errs []error
	for _, s := range servers {
		if err := s.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
