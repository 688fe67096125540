package wda

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// An answer over the bound is refused, whether it says its length or streams. The bound is
// lowered here so that -race need not read 64 MiB.
func TestAnswerTooLarge(t *testing.T) {
	const limit = 4 << 10
	for name, declare := range map[string]bool{"declared": true, "streamed": false} {
		t.Run(name, func(t *testing.T) {
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if declare {
					w.Header().Set("Content-Length", strconv.Itoa(limit+1))
					w.WriteHeader(http.StatusOK)
					return
				}
				_, _ = io.WriteString(w, `{"value":"`)
				for range limit {
					if _, err := io.WriteString(w, "AAAA"); err != nil {
						return
					}
				}
			}))
			t.Cleanup(hs.Close)
			c := New(hs.URL, hs.Client())
			c.maxBody = limit
			_, err := c.Screenshot(t.Context())
			if !errors.Is(err, ErrBadAnswer) || !strings.Contains(err.Error(), "GET /screenshot") || !strings.Contains(err.Error(), "allowed") {
				t.Errorf("got %v; want a bad answer, too large, naming the route", err)
			}
		})
	}
	if MaxResponse != 64<<20 {
		t.Errorf("MaxResponse = %d, want 64 MiB", MaxResponse)
	}
}
