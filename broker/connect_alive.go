package broker

import (
	"errors"
	"fmt"

	"github.com/nats-io/nats.go"
)

// ErrNATSClosed is a connection closed for good: it no longer reconnects, so only a restart
// brings the process back. A liveness probe (/healthz) fails on it; a connection that is
// only reconnecting fails readiness alone.
var ErrNATSClosed = errors.New("the NATS connection is closed for good and no longer reconnects: restart this process")

// ConnAlive is nil unless nc is closed: then ErrNATSClosed, with the last error NATS gave.
func ConnAlive(nc *nats.Conn) error {
	if !nc.IsClosed() {
		return nil
	}
	if err := nc.LastError(); err != nil {
		return fmt.Errorf("%w (last error: %v)", ErrNATSClosed, err)
	}
	return ErrNATSClosed
}

// Alive is ConnAlive of the client's connection, for the gateway's /healthz.
func (c *Client) Alive() error { return ConnAlive(c.nc) }
