package wdasim_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/corral-farm/corral/nodes/ios/wdasim"
	"github.com/corral-farm/corral/nodes/sim"
)

// The cost of the answers a client polls: a screenshot and the source of an iPhone SE.
func BenchmarkScreenshot(b *testing.B) { benchGet(b, "/screenshot") }
func BenchmarkSource(b *testing.B)     { benchGet(b, "/source") }

func benchGet(b *testing.B, path string) {
	s := wdasim.New(sim.New("bench", sim.WithSize(750, 1334)), 2)
	req := httptest.NewRequest(http.MethodGet, path, nil)
	var n int
	for b.Loop() {
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("HTTP %d %s", w.Code, w.Body)
		}
		n = w.Body.Len()
	}
	b.ReportMetric(float64(n), "bytes/answer")
}
