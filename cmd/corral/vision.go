//go:build vision

package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/vision/service"
	"github.com/corral-farm/corral/vision/worker"
)

// inProcessVision starts the one vision worker of `corral up`: this corral is built with vision.
var inProcessVision visionStarter = func(ctx context.Context, conn broker.ConnectOptions, reg *prometheus.Registry, log *slog.Logger) (func(), error) {
	// corral up's /readyz is the gateway's: the worker's connection is to the same embedded server.
	stop, _, err := startVisionWorker(ctx, conn, visionSettings{timeout: service.DefaultTimeout}, reg, log)
	return stop, err
}

// visionSettings are the flags of a vision worker.
type visionSettings struct {
	parallel, maxWaiting int
	timeout              time.Duration
	tessdata             string
}

// runVision runs a vision worker against a NATS: the corral-vision micro service, in its queue
// group with the farm's other workers.
func runVision(ctx context.Context, args []string) error {
	f := newFlags("vision")
	nf := f.natsFlags()
	parallel := f.Int("parallel", 0, "requests this worker runs at once, each on a core (0: the CPUs it may use)")
	maxWaiting := f.Int("max-waiting", 0, "requests that may wait for a slot; more are refused as busy at once (0: 32 × --parallel)")
	timeout := f.Duration("timeout", service.DefaultTimeout, "time a request may take from its arrival, waiting included "+
		"(a node's vision client tries another worker after 20s)")
	tessdata := f.String("tessdata", "", "directory of Tesseract's *.traineddata (default: Tesseract's own, or $TESSDATA_PREFIX)")
	metricsAddr := f.String("metrics", "127.0.0.1:8422", "address of the worker's /metrics ('' to serve none)")
	log, stop, err := f.start(args, func() error {
		err := checkVisionFlags(*parallel, *maxWaiting, *timeout)
		if err == nil && *metricsAddr != "" {
			err = checkListen("--metrics", *metricsAddr, "127.0.0.1:8422")
		}
		return errors.Join(err, checkNATS(nf, nf.connectOptions("")))
	})
	if err != nil || stop {
		return err
	}
	reg := newRegistry()
	stopWorker, ready, err := startVisionWorker(ctx, nf.connectOptions(""), visionSettings{parallel: *parallel, maxWaiting: *maxWaiting, timeout: *timeout, tessdata: *tessdata}, reg, log)
	if err != nil {
		return err
	}
	defer stopWorker()
	stopMetrics, err := serveMetrics(*metricsAddr, reg, log, ready)
	if err != nil {
		return metricsListenHint(err, "corral vision")
	}
	defer stopMetrics()
	<-ctx.Done()
	return nil
}

// checkVisionFlags refuses (badValue) the worker's bounds it could not keep, each by its flag.
func checkVisionFlags(parallel, maxWaiting int, timeout time.Duration) error {
	var errs []error
	if parallel < 0 {
		errs = append(errs, fmt.Errorf("--parallel %d: give the requests run at once, 0 (the CPUs it may use) or more", parallel))
	}
	if maxWaiting < 0 {
		errs = append(errs, fmt.Errorf("--max-waiting %d: give the requests that may wait, 0 (32 × --parallel) or more", maxWaiting))
	}
	if timeout <= 0 {
		errs = append(errs, fmt.Errorf("--timeout %s: give a positive duration, e.g. 20s", timeout))
	}
	return badValue(errors.Join(errs...))
}

// startVisionWorker starts the engine and serves it on its own NATS connection. stop stops taking
// requests, lets those under way finish (10 s at most: their callers try another worker), then
// closes the connection and the engine; ready fails while that connection is down (a worker cut
// off from NATS takes no requests, though it still answers: its /readyz).
func startVisionWorker(_ context.Context, conn broker.ConnectOptions, s visionSettings, reg *prometheus.Registry, log *slog.Logger) (stop func(), ready func() error, err error) {
	eng, err := worker.New(worker.Options{Parallel: s.parallel, TessdataDir: s.tessdata, Log: log})
	if err != nil {
		return nil, nil, fmt.Errorf("%w (Tesseract's English data: apt-get install tesseract-ocr-eng, or --tessdata DIR)", err)
	}
	if conn.Name == "" {
		conn.Name = "corral-vision"
	}
	nc, err := broker.Connect(conn, log)
	if err != nil {
		eng.Close()
		return nil, nil, err
	}
	host, _ := os.Hostname()
	svc, err := service.Start(nc, service.Options{Engine: eng, Parallel: s.parallel, MaxWaiting: s.maxWaiting, Timeout: s.timeout, Instance: host,
		Metrics: service.NewMetrics(reg), Log: log})
	if err != nil {
		nc.Close()
		eng.Close()
		if errors.Is(err, nats.ErrPermissionViolation) {
			err = fmt.Errorf("%w. corral vision runs as the vision role: give --nats-context DATA/nats/vision.json (%s)",
				err, whereContextIs(broker.RoleVision, ""))
		}
		return nil, nil, err
	}
	log.Info("vision worker ready", "languages", eng.Languages(), "instance", host)
	stop = func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := svc.Stop(ctx); err != nil {
			log.Warn("vision worker stopped with requests under way", "err", err)
		}
		nc.Close()
		eng.Close()
	}
	return stop, natsConnected(nc), nil
}
