package camera

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// counter is a FrameFunc whose frames carry a number in their red channel.
type counter struct{ n atomic.Int32 }

func (c *counter) frame(ctx context.Context) (image.Image, error) {
	img := image.NewRGBA(image.Rect(0, 0, 64, 48))
	v := uint8(c.n.Add(1) * 10)
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = v, 100, 50, 255
	}
	return img, nil
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond) // polling a condition, not waiting for time
	}
}

func TestMJPEGLoopback(t *testing.T) {
	var c counter
	var up atomic.Bool
	up.Store(true)
	kill := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !up.Load() {
			http.Error(w, "camera off", http.StatusServiceUnavailable)
			return
		}
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		go func() {
			select {
			case <-kill:
				cancel()
			case <-ctx.Done():
			}
		}()
		ServeMJPEG(w, r.WithContext(ctx), c.frame, StreamOptions{FPS: 50})
	}))
	defer srv.Close()
	ctx := context.Background()
	m, err := OpenMJPEG(ctx, srv.URL, WithBackoff(5*time.Millisecond, 20*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	// Frames are fresh: each comes after the call, so two calls see two frames.
	a, err := m.Frame(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.Frame(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if a.Bounds().Dx() != 64 || red(a) == red(b) {
		t.Fatalf("frames %v (red %d) and %v (red %d)", a.Bounds(), red(a), b.Bounds(), red(b))
	}
	// The camera goes off: Frame says so, clearly.
	up.Store(false)
	kill <- struct{}{}
	var downErr error
	waitFor(t, "the client to notice the stream stopped", func() bool {
		_, downErr = m.Frame(ctx)
		return downErr != nil
	})
	if !errors.Is(downErr, ErrDown) || !strings.Contains(downErr.Error(), srv.URL) {
		t.Fatalf("down: %v", downErr)
	}
	t.Logf("down: %v", downErr)
	// It comes back: the client reconnects by itself.
	up.Store(true)
	waitFor(t, "the client to reconnect", func() bool {
		_, err := m.Frame(ctx)
		return err == nil
	})
	// A deadline while connected but frameless is a timeout, not a hang.
	short, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := m.Frame(short); err == nil {
		t.Fatal("a cancelled Frame succeeded")
	}
	m.Close()
	if _, err := m.Frame(ctx); !errors.Is(err, ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
}

func red(img image.Image) uint32 {
	r, _, _, _ := img.At(10, 10).RGBA()
	return r >> 8
}

func TestOpenMJPEGRefuses(t *testing.T) {
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html>")
	}))
	defer page.Close()
	missing := httptest.NewServer(http.NotFoundHandler())
	defer missing.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	for name, u := range map[string]string{"page": page.URL, "404": missing.URL, "refused": closed.URL, "not a URL": "ftp://x"} {
		_, err := OpenMJPEG(context.Background(), u)
		if err == nil {
			t.Errorf("%s: opened", name)
			continue
		}
		t.Logf("%s: %v", name, err)
	}
}

// stream writes a multipart stream of the given parts, with or without lengths.
func stream(parts [][]byte, lengths bool) []byte {
	var b bytes.Buffer
	b.WriteString("preamble\r\n")
	for _, p := range parts {
		b.WriteString("--frame\r\nContent-Type: image/jpeg\r\n")
		if lengths {
			fmt.Fprintf(&b, "Content-Length: %d\r\n", len(p))
		}
		b.WriteString("\r\n")
		b.Write(p)
		b.WriteString("\r\n")
	}
	b.WriteString("--frame--\r\n")
	return b.Bytes()
}

func testJPEG(t testing.TB) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 16, 16))
	for i := range img.Pix {
		img.Pix[i] = uint8(i)
	}
	img.Set(3, 3, color.White)
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestPartReader(t *testing.T) {
	j := testJPEG(t)
	binary := append([]byte("\r\n--fram\n--frame-x\r\n"), j...) // looks like a boundary, is not one
	for _, lengths := range []bool{true, false} {
		r := newPartReader(bytes.NewReader(stream([][]byte{j, binary, j}, lengths)), "frame", DefaultMaxPart)
		for i, want := range [][]byte{j, binary, j} {
			h, body, err := r.next()
			if err != nil {
				t.Fatalf("lengths %v part %d: %v", lengths, i, err)
			}
			if h["content-type"] != "image/jpeg" || !bytes.Equal(body, want) {
				t.Fatalf("lengths %v part %d: %d bytes, want %d", lengths, i, len(body), len(want))
			}
		}
		if _, _, err := r.next(); err != io.EOF {
			t.Fatalf("after the last part: %v", err)
		}
	}
	// Caps: a part over the cap, with or without a length, is a clear error.
	for _, lengths := range []bool{true, false} {
		r := newPartReader(bytes.NewReader(stream([][]byte{bytes.Repeat([]byte{1}, 5000)}, lengths)), "frame", 1000)
		if _, _, err := r.next(); !errors.Is(err, ErrBadFrame) {
			t.Fatalf("lengths %v: over the cap: %v", lengths, err)
		}
	}
	if _, err := decodeJPEG(j, 100); !errors.Is(err, ErrBadFrame) {
		t.Fatalf("over the pixel cap: %v", err)
	}
}

func FuzzPartReader(f *testing.F) {
	j := testJPEG(f)
	f.Add(stream([][]byte{j}, true), "frame")
	f.Add(stream([][]byte{j, j}, false), "frame")
	f.Add([]byte("--x\r\nContent-Length: 99999999999\r\n\r\n"), "x")
	f.Add([]byte("--x\r\n\r\nabc\n--x--"), "--x")
	f.Fuzz(func(t *testing.T, data []byte, boundary string) {
		const max = 1 << 16
		r := newPartReader(bytes.NewReader(data), boundary, max)
		for i := 0; i < 100; i++ {
			_, body, err := r.next()
			if err != nil {
				return
			}
			if len(body) > max {
				t.Fatalf("a %d-byte part passed the %d-byte cap", len(body), max)
			}
			_, _ = decodeJPEG(body, 1<<20)
		}
	})
}
