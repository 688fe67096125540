package rig

import (
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"sync"

	"github.com/corral-farm/corral/internal/geom"
	"github.com/corral-farm/corral/nodes/device"
)

// Pages serves the calibration page to the browsers of real phones and reads their touches
// back, for rigs whose phone has no cable: the phone under rig R opens /R/ full screen, and
// the page reports its size and every touch (in screen pixels) to /R/report; the rig's
// readback is /R/events, the stream HTTPReadback reads. `corral arm page` runs one.
type Pages struct {
	log *slog.Logger

	mu   sync.Mutex
	rigs map[string]*pageState
}

// pageState is what one rig's page has told.
type pageState struct {
	size    device.Size
	sized   chan struct{}     // closed once the page told its size
	touches chan<- geom.Point // the open stream's, nil while none is open
}

// NewPages makes an empty page server; log gets a line per page load and stream.
func NewPages(log *slog.Logger) *Pages {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Pages{log: log, rigs: map[string]*pageState{}}
}

// maxPageRigs bounds the rigs one server keeps state for: a bench has a few.
const maxPageRigs = 256

// rigName is what a rig's serial may be in a page's path.
var rigName = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// state is rig's state, made on first use; nil when the name is bad or there are too many.
func (p *Pages) state(rig string) *pageState {
	if !rigName.MatchString(rig) {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	s, ok := p.rigs[rig]
	if !ok {
		if len(p.rigs) >= maxPageRigs {
			return nil
		}
		s = &pageState{sized: make(chan struct{})}
		p.rigs[rig] = s
	}
	return s
}

// Handler serves the pages, the reports and the streams.
func (p *Pages) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{rig}/{$}", p.page)
	mux.HandleFunc("POST /{rig}/report", p.report)
	mux.HandleFunc("GET /{rig}/events", p.events)
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, "Corral's calibration pages: open /RIG/ on the phone under rig RIG, full screen "+
			"(iPhone: Share, Add to Home Screen, open it from there); the rig's readback is /RIG/events.\n")
	})
	return mux
}

func (p *Pages) page(w http.ResponseWriter, r *http.Request) {
	rig := r.PathValue("rig")
	if p.state(rig) == nil {
		http.Error(w, "not a rig's name", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	p.log.Info("calibration page opened", "rig", rig, "from", r.RemoteAddr)
	_ = pageHTML.Execute(w, rig)
}

// pageReport is one report of a page: its size in screen pixels, or a touch.
type pageReport struct {
	Width  int      `json:"width"`
	Height int      `json:"height"`
	X      *float64 `json:"x"`
	Y      *float64 `json:"y"`
}

func (p *Pages) report(w http.ResponseWriter, r *http.Request) {
	s := p.state(r.PathValue("rig"))
	if s == nil {
		http.Error(w, "not a rig's name", http.StatusNotFound)
		return
	}
	var rep pageReport
	if err := json.NewDecoder(io.LimitReader(r.Body, 1024)).Decode(&rep); err != nil {
		http.Error(w, "a report is {\"width\":W,\"height\":H} or {\"x\":X,\"y\":Y}: "+err.Error(), http.StatusBadRequest)
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case rep.X != nil && rep.Y != nil:
		x, y := *rep.X, *rep.Y
		if s.size.Width == 0 || !finite(x) || !finite(y) || x < 0 || y < 0 || x > float64(s.size.Width) || y > float64(s.size.Height) {
			http.Error(w, "a touch off the page, or before its size", http.StatusBadRequest)
			return
		}
		if s.touches == nil {
			w.WriteHeader(http.StatusAccepted) // no calibration is reading: nothing to do
			return
		}
		select {
		case s.touches <- geom.Point{X: x, Y: y}:
		default: // a stream that does not read loses touches, not the page's requests
		}
	case rep.Width > 0 && rep.Height > 0 && rep.Width <= 20000 && rep.Height <= 20000:
		s.size = device.Size{Width: rep.Width, Height: rep.Height}
		select {
		case <-s.sized:
		default:
			close(s.sized)
		}
	default:
		http.Error(w, "a report is {\"width\":W,\"height\":H} (1 to 20000 pixels) or {\"x\":X,\"y\":Y}", http.StatusBadRequest)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// events is the readback stream of HTTPReadback: once the page has told its size, that size,
// then every touch, while the request lasts. One stream per rig at a time.
func (p *Pages) events(w http.ResponseWriter, r *http.Request) {
	rig := r.PathValue("rig")
	s := p.state(rig)
	flusher, ok := w.(http.Flusher)
	switch {
	case s == nil:
		http.Error(w, "not a rig's name", http.StatusNotFound)
		return
	case !ok:
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	touches := make(chan geom.Point, 64)
	p.mu.Lock()
	busy := s.touches != nil
	if !busy {
		s.touches = touches
	}
	p.mu.Unlock()
	if busy {
		http.Error(w, "a calibration of "+rig+" reads its touches already", http.StatusConflict)
		return
	}
	defer func() {
		p.mu.Lock()
		s.touches = nil
		p.mu.Unlock()
	}()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	fmt.Fprint(w, ": waiting for the page to tell its size\n\n")
	flusher.Flush()
	select {
	case <-s.sized:
	case <-r.Context().Done():
		return
	}
	p.mu.Lock()
	size := s.size
	p.mu.Unlock()
	p.log.Info("calibration readback streaming", "rig", rig, "width", size.Width, "height", size.Height)
	if !sendEvent(w, flusher, map[string]int{"width": size.Width, "height": size.Height}) {
		return
	}
	for {
		select {
		case t := <-touches:
			if !sendEvent(w, flusher, map[string]float64{"x": t.X, "y": t.Y}) {
				return
			}
		case <-r.Context().Done():
			return
		}
	}
}

// sendEvent writes v as one server-sent event.
func sendEvent(w io.Writer, f http.Flusher, v any) bool {
	b, _ := json.Marshal(v)
	if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
		return false
	}
	f.Flush()
	return true
}

// pageHTML is the page: arm/calib.Page drawn by the browser at the screen's own pixels (all
// white, a grey ring at each of the 9 probes, placed as calib.Probes places them), and every
// pointer down reported in screen pixels. Full screen, the page's CSS pixels times the device
// pixel ratio are the screen's pixels.
var pageHTML = template.Must(template.New("page").Parse(`<!doctype html>
<html><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1,maximum-scale=1,user-scalable=no,viewport-fit=cover">
<meta name="apple-mobile-web-app-capable" content="yes">
<meta name="mobile-web-app-capable" content="yes">
<meta name="apple-mobile-web-app-status-bar-style" content="black-translucent">
<title>Corral calibration: {{.}}</title>
<style>html,body{margin:0;height:100%;background:#fff;overflow:hidden;touch-action:none;-webkit-user-select:none;user-select:none;-webkit-touch-callout:none}
canvas{position:fixed;left:0;top:0;display:block}</style>
</head><body><canvas id="page"></canvas><script>
"use strict";
const report = v => fetch("report", {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(v), keepalive: true});
const canvas = document.getElementById("page"), g = canvas.getContext("2d");
function probes(w, h, n) {
  const cols = Math.max(1, Math.round(Math.sqrt(n * w / h))), rows = Math.ceil(n / cols), out = [];
  const at = (i, k) => k === 1 ? 0.5 : 0.15 + 0.7 * i / (k - 1);
  for (let r = 0; r < rows && out.length < n; r++)
    for (let c = 0; c < cols && out.length < n; c++) out.push([at(c, cols) * w, at(r, rows) * h]);
  return out;
}
function draw() {
  const d = window.devicePixelRatio || 1, w = Math.round(innerWidth * d), h = Math.round(innerHeight * d);
  canvas.width = w; canvas.height = h;
  canvas.style.width = innerWidth + "px"; canvas.style.height = innerHeight + "px";
  g.fillStyle = "#fff"; g.fillRect(0, 0, w, h);
  g.strokeStyle = g.fillStyle = "rgb(150,150,150)"; g.lineWidth = 2;
  const r = Math.max(Math.min(w, h) / 40, 3);
  for (const [x, y] of probes(w, h, 9)) {
    g.beginPath(); g.arc(x, y, r, 0, 2 * Math.PI); g.stroke();
    g.beginPath(); g.arc(x, y, 2, 0, 2 * Math.PI); g.fill();
  }
  report({width: w, height: h});
}
addEventListener("resize", draw);
addEventListener("pointerdown", e => {
  e.preventDefault();
  const d = window.devicePixelRatio || 1;
  report({x: e.clientX * d, y: e.clientY * d});
}, {passive: false});
addEventListener("contextmenu", e => e.preventDefault());
draw();
</script></body></html>
`))
