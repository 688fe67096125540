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
// frames that fails before the first frame is answered with 503 and its error. A frames that
// gives the very *image.RGBA it gave last says that the picture did not change: it is sent
// again as it was encoded (encoding a large frame takes a while).
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
	var sent image.Image // the frame buf holds
	for first := true; ; first = false {
		img, err := frames(ctx)
		if err == nil && !sameImage(img, sent) {
			buf.Reset()
			sent = nil
			if err = jpeg.Encode(&buf, img, &jpeg.Options{Quality: o.Quality}); err == nil {
				sent = img
			}
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

// sameImage says whether a and b are the very same *image.RGBA.
func sameImage(a, b image.Image) bool {
	p, ok := a.(*image.RGBA)
	q, ok2 := b.(*image.RGBA)
	return ok && ok2 && p == q
}
