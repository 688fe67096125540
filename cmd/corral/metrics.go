package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/corral-farm/corral/broker"
)

// serveMetrics serves reg's /metrics on addr ("" serves none) until the returned stop is
// called, with /healthz (the process answers) and /readyz for probes: 503 "not ready: …" while
// one of ready fails, as the gateway's /readyz answers.
func serveMetrics(addr string, reg *prometheus.Registry, log *slog.Logger, ready ...func() error) (stop func(), err error) {
	if addr == "" {
		return func() {}, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics listener %s: %w", addr, err)
	}
	srv := &http.Server{Handler: metricsMux(reg, ready), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics server stopped", "err", err)
		}
	}()
	return func() { _ = srv.Close() }, nil
}

func metricsMux(reg *prometheus.Registry, ready []func() error) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		// A NATS connection closed for good never comes back: fail, so that the orchestrator
		// restarts the process. Any other failed check (NATS reconnecting) fails /readyz only.
		for _, check := range ready {
			if err := check(); errors.Is(err, broker.ErrNATSClosed) {
				http.Error(w, "unhealthy: "+err.Error(), http.StatusServiceUnavailable)
				return
			}
		}
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		for _, check := range ready {
			if err := check(); err != nil {
				http.Error(w, "not ready: "+err.Error(), http.StatusServiceUnavailable)
				return
			}
		}
		fmt.Fprintln(w, "ready")
	})
	return mux
}

// natsConnected is a readiness check of a NATS connection, in the gateway's words
// (broker.Client.Ready): a node cut off from NATS serves no calls, though it still answers.
func natsConnected(nc *nats.Conn) func() error {
	return func() error {
		if err := broker.ConnAlive(nc); err != nil {
			return err
		}
		if !nc.IsConnected() {
			return fmt.Errorf("not connected to NATS (%s)", nc.Status())
		}
		return nil
	}
}
