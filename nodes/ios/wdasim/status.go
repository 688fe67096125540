package wdasim

import (
	"net"
	"net/http"

	"github.com/corral-farm/corral/nodes/uitree"
)

// What the simulated iPhone says it runs.
const (
	iosVersion     = "17.5"
	runnerBundleID = "com.facebook.WebDriverAgentRunner"
	statusBarID    = "com.android.systemui:id/status_bar"
)

// status answers GET /status.
func (s *Server) status(c *call) (any, error) {
	var ip any // null, as on a phone with no Wi-Fi address
	if a, ok := c.r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		if host, _, err := net.SplitHostPort(a.String()); err == nil {
			ip = host
		}
	}
	return map[string]any{
		"ready":   true,
		"message": "WebDriverAgent is ready to accept commands",
		"state":   "success",
		"os": map[string]any{
			"name": "iOS", "version": iosVersion, "sdkVersion": iosVersion, "testmanagerdVersion": 28,
		},
		"ios":    map[string]any{"ip": ip},
		"build":  map[string]any{"time": "Jan  1 2026 12:00:00", "productBundleIdentifier": runnerBundleID},
		"device": "iphone",
	}, nil
}

// windowSize answers GET /session/:sid/window/size, in points.
func (s *Server) windowSize(c *call) (any, error) {
	sz, err := s.screenSize(c.ctx)
	if err != nil {
		return nil, err
	}
	return s.pointSize(sz.Width, sz.Height), nil
}

// screen answers GET /wda/screen: the screen and status bar in points, and the scale.
func (s *Server) screen(c *call) (any, error) {
	sz, err := s.screenSize(c.ctx)
	if err != nil {
		return nil, err
	}
	bar := map[string]float64{"width": 0, "height": 0}
	if !s.isScreenOff() {
		dump, err := s.phone.Source(c.ctx)
		if err != nil {
			return nil, err
		}
		els, err := uitree.Parse(dump)
		if err != nil {
			return nil, errUnknown("the phone's UI dump: " + err.Error())
		}
		for _, e := range els {
			if e.ResourceID == statusBarID {
				bar = s.pointSize(e.Bounds.Dx(), e.Bounds.Dy())
				break
			}
		}
	}
	return map[string]any{
		"screenSize":    s.pointSize(sz.Width, sz.Height),
		"statusBarSize": bar,
		"scale":         s.scale,
	}, nil
}

func (s *Server) pointSize(w, h int) map[string]float64 {
	sc := float64(s.scale)
	return map[string]float64{"width": float64(w) / sc, "height": float64(h) / sc}
}
