package console

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/corral-farm/corral/broker"
)

// Live screens reach the browser as Server-Sent Events: one stream per page carries the frames
// of every screen on it, each event a JSON object with the JPEG in base64. EventSource is in
// every browser, needs no library, reconnects by itself, and one stream for many screens stays
// within a browser's six connections to a host (an <img> per MJPEG stream would not).

// Bounds of a frames stream.
const (
	maxStreamDevices = 100              // screens in one stream
	writeTimeout     = 10 * time.Second // a browser that takes longer to read a frame is gone
	keepAlive        = 15 * time.Second // a comment line, so proxies keep an idle stream open
)

// frameEvent is the data of one "frame" event.
type frameEvent struct {
	Serial   string    `json:"serial"`
	Seq      uint64    `json:"seq"`
	Width    int       `json:"width"`
	Height   int       `json:"height"`
	Captured time.Time `json:"captured"`
	JPEG     string    `json:"jpeg"` // base64
}

// frames streams the live screens: /console/frames?serial=A&serial=B&width=360&fps=2.
func (c *Console) frames(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	serials := sorted(q["serial"])
	switch {
	case len(serials) == 0:
		http.Error(w, "name the devices to watch: /console/frames?serial=SERIAL (repeat for more)", http.StatusBadRequest)
		return
	case len(serials) > maxStreamDevices:
		http.Error(w, fmt.Sprintf("%d devices in one stream; at most %d (watch the ones on screen)", len(serials), maxStreamDevices), http.StatusBadRequest)
		return
	}
	for _, s := range serials {
		if _, ok := c.visible(r.Context(), s); !ok {
			http.Error(w, fmt.Sprintf("no such device %q: it is not in the registry, or your token may not use it", s), http.StatusNotFound)
			return
		}
	}
	if v := viewerFrom(r.Context()); !v.mayScreen() {
		http.Error(w, "forbidden: "+v.HiddenScreen(), http.StatusForbidden)
		return
	}
	if c.hub == nil {
		http.Error(w, "this gateway cannot show live screens (it has no farm connection that can)", http.StatusNotImplemented)
		return
	}
	a := ask{width: broker.WatchDefaultWidth, fps: broker.WatchDefaultFPS}
	if v, err := strconv.Atoi(q.Get("width")); err == nil {
		a.width = min(max(v, broker.WatchMinWidth), broker.WatchMaxWidth)
	}
	if v, err := strconv.ParseFloat(q.Get("fps"), 64); err == nil && !math.IsNaN(v) && v > 0 {
		a.fps = min(v, broker.WatchMaxFPS)
	}

	// The stream outlives the gateway's read deadline (bounds.go), which would cancel it.
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	w.WriteHeader(http.StatusOK)
	if err := rc.Flush(); err != nil {
		return
	}

	s := newSink()
	for _, serial := range serials {
		c.hub.attach(s, serial, a)
	}
	c.cfg.Metrics.watchers(1)
	defer func() {
		for _, serial := range serials {
			c.hub.detach(s, serial)
		}
		c.cfg.Metrics.watchers(-1)
	}()
	ping := time.NewTicker(keepAlive)
	defer ping.Stop()
	for {
		var out []byte
		select {
		case <-r.Context().Done():
			return
		case <-ping.C:
			out = []byte(": ping\n\n")
		case <-s.ready:
			for _, f := range s.take() {
				data, _ := json.Marshal(frameEvent{Serial: f.Serial, Seq: f.Seq, Width: f.Width, Height: f.Height, Captured: f.Captured,
					JPEG: base64.StdEncoding.EncodeToString(f.JPEG)})
				out = fmt.Appendf(out, "event: frame\ndata: %s\n\n", data)
			}
		}
		_ = rc.SetWriteDeadline(time.Now().Add(writeTimeout))
		if _, err := w.Write(out); err != nil {
			return
		}
		if err := rc.Flush(); err != nil {
			return
		}
	}
}
