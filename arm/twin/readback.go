package twin

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// ReadbackHandler serves the calibration readback over HTTP, for a rig whose driver runs in
// another process (corral sim arm): while a GET holds its response open, the phone shows the
// calibration page, and the response is a stream of server-sent events, first the screen's
// size ({"width":W,"height":H}) and then one {"x":X,"y":Y} per touch, in screen pixels.
// arm/rig's HTTPReadback reads it.
func (t *Twin) ReadbackHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		flusher, ok := w.(http.Flusher)
		if !ok {
			http.Error(w, "streaming unsupported", http.StatusInternalServerError)
			return
		}
		touches, size, stop, err := t.ShowCalibration(r.Context())
		if err != nil {
			http.Error(w, err.Error(), http.StatusConflict)
			return
		}
		defer stop()
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-store")
		send := func(v any) bool {
			b, _ := json.Marshal(v)
			if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
				return false
			}
			flusher.Flush()
			return true
		}
		if !send(map[string]int{"width": size.Width, "height": size.Height}) {
			return
		}
		for {
			select {
			case p := <-touches:
				if !send(map[string]float64{"x": p.X, "y": p.Y}) {
					return
				}
			case <-r.Context().Done():
				return
			}
		}
	})
}
