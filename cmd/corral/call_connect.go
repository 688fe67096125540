package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/corral-farm/corral/broker"
)

// A command's connection to NATS is made once, as it starts: one that times out or is
// refused, as on a loaded machine or while the NATS server restarts, is tried again a few
// times (connectTries) before the command fails; credentials refused, a bad URL or TLS are not.

// connectTries bounds the tries of connect; each waits for NATS up to nats.go's connect
// timeout (2 s), and the next starts connectPause times the tries so far later.
const (
	connectTries = 3
	connectPause = 150 * time.Millisecond
)

// connect connects to NATS as o says, trying again after a timeout or a refusal until ctx
// ends: Ctrl-C, between tries or during one, ends it at once, with ctx's error.
func connect(ctx context.Context, o broker.ConnectOptions, log *slog.Logger) (*nats.Conn, error) {
	for try := 1; ; try++ {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("connecting to NATS: %w", err) // not its URL: it may carry credentials
		}
		nc, err := broker.ConnectContext(ctx, o, log)
		if err == nil || try == connectTries || !transientConnectError(err) {
			return nc, err
		}
		o.URLWarned = true // once per command
		log.Info("NATS connect failed, trying again", "try", try, "of", connectTries, "err", err)
		pause := time.NewTimer(time.Duration(try) * connectPause)
		select {
		case <-pause.C:
		case <-ctx.Done():
			pause.Stop()
			return nil, fmt.Errorf("connecting to NATS: stopped before try %d of %d: %w", try+1, connectTries, ctx.Err())
		}
	}
}

// transientConnectError says whether a connect failed for want of an answer in time, or
// because nothing listened (nats.go says ErrNoServers of a refused connection): what may pass.
func transientConnectError(err error) bool {
	var ne net.Error
	return errors.Is(err, nats.ErrNoServers) || errors.Is(err, nats.ErrTimeout) || errors.Is(err, os.ErrDeadlineExceeded) ||
		(errors.As(err, &ne) && ne.Timeout())
}
