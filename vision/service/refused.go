package service

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/nats-io/nats.go"

	"github.com/corral-farm/corral/vision"
)

// NATS refuses a subscription its user may not make asynchronously: the server sends -ERR and
// the worker, subscribed as far as it knows, would serve nothing. The server answers a
// connection's messages in order, so once a flush after the subscriptions returns, the refusal
// of any of them has been read and is the connection's last error.

var refusedRE = regexp.MustCompile(`(?i)permissions violation for subscription to "([^"]+)"`)

// refusedSubscription returns an error when nc's last error is NATS refusing a subscription of
// this service (its endpoints', or micro's $SRV ones), nil otherwise. Call it after a flush.
func refusedSubscription(nc *nats.Conn) error {
	last := nc.LastError()
	if !errors.Is(last, nats.ErrPermissionViolation) {
		return nil
	}
	m := refusedRE.FindStringSubmatch(last.Error())
	if m == nil || !(strings.HasPrefix(m[1], vision.Prefix+".") || strings.HasPrefix(m[1], "$SRV.")) {
		return nil
	}
	return fmt.Errorf("NATS refused this worker's subscription to %q, so it would serve nothing: %w "+
		"(its NATS user may not serve vision requests; connect as the vision role's user)", m[1], last)
}
