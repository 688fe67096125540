package camera

import (
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// MJPEG reads an MJPEG stream over HTTP (multipart/x-mixed-replace, as IP cameras and phone
// camera apps serve it), keeps its latest frame, and reconnects with backoff when the stream
// stops.
type MJPEG struct {
	url    string
	o      mjpegOptions
	frames *latest[[]byte]
	cancel context.CancelFunc
	done   chan struct{}
	once   sync.Once
}

var _ Source = (*MJPEG)(nil)

type mjpegOptions struct {
	client           *http.Client
	maxAge           time.Duration
	maxPart          int
	stall            time.Duration
	minWait, maxWait time.Duration
	log              *slog.Logger
}

// MJPEGOption tunes OpenMJPEG.
type MJPEGOption func(*mjpegOptions)

// WithHTTPClient reads the stream with c (default: a client without a timeout, as a stream
// never ends).
func WithHTTPClient(c *http.Client) MJPEGOption { return func(o *mjpegOptions) { o.client = c } }

// WithMaxAge lets Frame return the latest frame at once when it is younger than d, instead
// of waiting for the next one.
func WithMaxAge(d time.Duration) MJPEGOption { return func(o *mjpegOptions) { o.maxAge = d } }

// WithMaxPart caps one JPEG of the stream (default DefaultMaxPart, 16 MiB).
func WithMaxPart(n int) MJPEGOption { return func(o *mjpegOptions) { o.maxPart = n } }

// WithStallTimeout drops and reopens a connection that sends no frame for d (default 10 s).
func WithStallTimeout(d time.Duration) MJPEGOption { return func(o *mjpegOptions) { o.stall = d } }

// WithBackoff waits from min, doubling up to max, between reconnections (default 100 ms to
// 5 s); a frame resets it.
func WithBackoff(min, max time.Duration) MJPEGOption {
	return func(o *mjpegOptions) { o.minWait, o.maxWait = min, max }
}

// WithLogger logs disconnections and reconnections to l.
func WithLogger(l *slog.Logger) MJPEGOption { return func(o *mjpegOptions) { o.log = l } }

// OpenMJPEG connects to the MJPEG stream at rawURL and keeps reading it until Close. The
// first connection must succeed (within ctx); later ones are retried with backoff, and
// Frame says the camera is down (ErrDown) while they fail.
func OpenMJPEG(ctx context.Context, rawURL string, opts ...MJPEGOption) (*MJPEG, error) {
	o := mjpegOptions{client: &http.Client{}, maxPart: DefaultMaxPart, stall: 10 * time.Second,
		minWait: 100 * time.Millisecond, maxWait: 5 * time.Second, log: slog.New(slog.DiscardHandler)}
	for _, opt := range opts {
		opt(&o)
	}
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("camera: %q is not an http:// or https:// URL of an MJPEG stream", rawURL)
	}
	if o.maxPart <= 0 || o.stall <= 0 || o.minWait <= 0 || o.maxWait < o.minWait {
		return nil, fmt.Errorf("camera: bad MJPEG options: part cap %d, stall timeout %v, backoff %v–%v must be positive", o.maxPart, o.stall, o.minWait, o.maxWait)
	}
	loop, cancel := context.WithCancel(context.Background())
	m := &MJPEG{url: rawURL, o: o, frames: newLatest[[]byte](), cancel: cancel, done: make(chan struct{})}
	body, b, err := m.connect(loop, ctx)
	if err != nil {
		cancel()
		return nil, err
	}
	go m.run(loop, body, b)
	return m, nil
}

// connect opens the stream: its body and boundary. The handshake also ends with hs.
func (m *MJPEG) connect(loop, hs context.Context) (io.ReadCloser, string, error) {
	req, err := http.NewRequestWithContext(loop, http.MethodGet, m.url, nil)
	if err != nil {
		return nil, "", fmt.Errorf("camera %s: %w", m.url, err)
	}
	ctx, cancel := context.WithCancel(loop)
	stop := context.AfterFunc(hs, cancel)
	resp, err := m.o.client.Do(req.WithContext(ctx))
	stopped := stop()
	if err != nil {
		cancel()
		if !stopped && hs.Err() != nil {
			err = hs.Err()
		}
		return nil, "", fmt.Errorf("%w: %s: %w: is the camera (or its app) running, and the address right?", ErrDown, m.url, err)
	}
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		_ = resp.Body.Close()
		cancel()
		return nil, "", fmt.Errorf("%w: %s answers %s (%.200q): is the URL the camera's MJPEG stream?", ErrDown, m.url, resp.Status, msg)
	}
	b, err := boundaryOf(resp.Header.Get("Content-Type"))
	if err != nil {
		_ = resp.Body.Close()
		cancel()
		return nil, "", fmt.Errorf("camera %s: %w", m.url, err)
	}
	return &cancelBody{resp.Body, cancel}, b, nil
}

// cancelBody also cancels its request's context on Close.
type cancelBody struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c *cancelBody) Close() error {
	c.cancel()
	return c.ReadCloser.Close()
}

// run reads the stream, and reconnects with backoff when it stops, until loop ends.
func (m *MJPEG) run(loop context.Context, body io.ReadCloser, b string) {
	defer close(m.done)
	wait := m.o.minWait
	for {
		if body != nil {
			got, err := m.read(body, b)
			_ = body.Close()
			if loop.Err() != nil {
				return
			}
			if got {
				wait = m.o.minWait
			}
			m.o.log.Warn("camera stream stopped; reconnecting", "url", m.url, "err", err, "in", wait)
			m.frames.fail(fmt.Errorf("%w: the stream at %s stopped: %w; reconnecting (is the camera, or its app, still running?)", ErrDown, m.url, err))
		}
		select {
		case <-loop.Done():
			return
		case <-time.After(wait):
		}
		var err error
		body, b, err = m.connect(loop, loop)
		if err != nil {
			if loop.Err() != nil {
				return
			}
			m.frames.fail(err)
			m.o.log.Warn("camera stream unreachable", "url", m.url, "err", err, "retry in", wait)
			wait = min(2*wait, m.o.maxWait)
			continue
		}
		m.o.log.Info("camera stream reconnected", "url", m.url)
	}
}

// read puts the stream's frames until it fails or stalls; got says whether a frame came.
func (m *MJPEG) read(body io.ReadCloser, b string) (got bool, err error) {
	var stalled sync.Once
	var didStall bool
	var mu sync.Mutex
	timer := time.AfterFunc(m.o.stall, func() {
		stalled.Do(func() {
			mu.Lock()
			didStall = true
			mu.Unlock()
			_ = body.Close()
		})
	})
	defer timer.Stop()
	parts := newPartReader(body, b, m.o.maxPart)
	for {
		header, data, err := parts.next()
		if err != nil {
			mu.Lock()
			defer mu.Unlock()
			if didStall {
				return got, fmt.Errorf("no frame for %v", m.o.stall)
			}
			if errors.Is(err, io.EOF) {
				return got, errors.New("the server ended it")
			}
			return got, err
		}
		if ct := header["content-type"]; ct != "" && ct != "image/jpeg" && ct != "image/jpg" {
			continue // some cameras interleave other parts (audio, metadata)
		}
		timer.Reset(m.o.stall)
		m.frames.put(data, time.Now())
		got = true
	}
}

// Frame is the first frame that arrives after the call (or the latest, if younger than
// WithMaxAge), decoded.
func (m *MJPEG) Frame(ctx context.Context) (image.Image, error) {
	data, err := m.frames.next(ctx, m.o.maxAge)
	if err != nil {
		if errors.Is(err, ErrClosed) || errors.Is(err, ErrDown) {
			return nil, err
		}
		return nil, fmt.Errorf("camera %s: %w", m.url, err)
	}
	img, err := decodeJPEG(data, MaxFramePixels)
	if err != nil {
		return nil, fmt.Errorf("camera %s: %w", m.url, err)
	}
	return img, nil
}

// Close stops reading the stream.
func (m *MJPEG) Close() error {
	m.once.Do(func() {
		m.cancel()
		<-m.done
		m.frames.close()
	})
	return nil
}
