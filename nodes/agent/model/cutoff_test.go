package model_test

import (
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/corral-farm/corral/nodes/agent/model"
)

// A server that reads the request and then closes the connection without answering (it
// crashed, ran out of memory, or a proxy timed out) is there: the call is a cut-off, which
// the agent retries once (ErrServer), not "unreachable", and its hint says the server closed
// the connection.
func TestChatConnectionClosedAfterTheRequest(t *testing.T) {
	for _, reset := range []bool{false, true} {
		for _, stream := range []bool{false, true} {
			name := map[bool]string{false: "closed", true: "reset"}[reset] + map[bool]string{false: "", true: " streaming"}[stream]
			t.Run(name, func(t *testing.T) {
				var got atomic.Int32
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					_, _ = io.Copy(io.Discard, r.Body)
					got.Add(1)
					conn, _, err := http.NewResponseController(w).Hijack()
					if err != nil {
						t.Error(err)
						return
					}
					if tcp, ok := conn.(*net.TCPConn); ok && reset {
						_ = tcp.SetLinger(0) // close with a RST: "connection reset by peer"
					}
					_ = conn.Close()
				}))
				t.Cleanup(srv.Close)
				reg := prometheus.NewRegistry()
				c, err := model.NewClient(model.Config{BaseURL: srv.URL + "/v1", APIKey: model.NewSecret(testKey), Model: "m"}, nil,
					model.WithMetrics(model.NewMetrics(reg)))
				if err != nil {
					t.Fatal(err)
				}
				_, err = c.Chat(t.Context(), model.Request{Messages: user("x"), Stream: stream})
				checkErr(t, err, model.ErrServer, srv.URL+"/v1", "closed the connection without a whole answer", "crashed", "retrying may help")
				if errors.Is(err, model.ErrUnreachable) {
					t.Errorf("a server that took the request is called unreachable: %v", err)
				}
				if got.Load() != 1 {
					t.Errorf("the server got %d requests, want 1", got.Load())
				}
				if v := gather(t, reg)["corral_model_requests_total{outcome=cut_off}"]; v != 1 {
					t.Errorf("counted cut_off %v times, want 1", v)
				}
			})
		}
	}
}
