package camera

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/jpeg"
	"net/http"
	"time"
)

// FrameFunc gives the picture to send next.
type FrameFunc func(ctx context.Context) (image.Image, error)

// StreamOptions tune ServeMJPEG.
type StreamOptions struct {
	// FPS is the most frames a second to send (default 10); a slow FrameFunc sends fewer.
	FPS float64
	// Quality is the JPEG quality, 1–100 (default 85).
	Quality int
}

// boundary separates the frames ServeMJPEG sends.
const boundary = "corralframe"

// ServeMJPEG streams frames as multipart/x-mixed-replace JPEGs, as an IP camera does, until
// the client goes away or frames fails (the stream then ends, and a client reconnects). A
// frames that fails before the first frame is answered with 503 and its error.
func ServeMJPEG(w http.ResponseWriter, r *http.Request, frames FrameFunc, o StreamOptions) {
	if o.FPS <= 0 {
		o.FPS = 10
	}
	if o.Quality <= 0 || o.Quality > 100 {
		o.Quality = 85
	}
	ctx := r.Context()
	rc := http.NewResponseController(w)
	tick := time.NewTicker(time.Duration(float64(time.Second) / o.FPS))
	defer tick.Stop()
	var buf bytes.Buffer
	for first := true; ; first = false {
		img, err := frames(ctx)
		if err == nil {
			buf.Reset()
			err = jpeg.Encode(&buf, img, &jpeg.Options{Quality: o.Quality})
		}
		if err != nil {
			if first {
				http.Error(w, fmt.Sprintf("camera: no frame: %v", err), http.StatusServiceUnavailable)
			}
			return
		}
		if first {
			h := w.Header()
			h.Set("Content-Type", "multipart/x-mixed-replace; boundary="+boundary)
			h.Set("Cache-Control", "no-cache, no-store")
			h.Set("Connection", "close")
			w.WriteHeader(http.StatusOK)
		}
		if _, err := fmt.Fprintf(w, "--%s\r\nContent-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n", boundary, buf.Len()); err != nil {
			return
		}
		if _, err := w.Write(append(buf.Bytes(), '\r', '\n')); err != nil {
			return
		}
		if err := rc.Flush(); err != nil {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
