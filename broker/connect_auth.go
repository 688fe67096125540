package broker

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/nats-io/nats.go"
)

// A connection whose credentials NATS refuses as it reconnects (a password changed by corral
// nats-auth and reloaded before this process's secret was) keeps trying with them: nats.go's
// default gives up after the second refusal, which left the process up but closed for good,
// and a secret fixed afterwards changed nothing. The refusal is said once an outage, not at
// every try, and never with the password.

// authRefusal says once an outage that NATS refuses the connection's credentials.
type authRefusal struct {
	user string // "" when unknown
	log  *slog.Logger

	mu   sync.Mutex
	told bool
}

// isAuthRefusal says whether err is NATS refusing the connection's credentials.
func isAuthRefusal(err error) bool {
	return errors.Is(err, nats.ErrAuthorization) || errors.Is(err, nats.ErrAuthExpired) ||
		errors.Is(err, nats.ErrAuthRevoked) || errors.Is(err, nats.ErrAccountAuthExpired)
}

// refused notes a refusal, logging the first of an outage.
func (a *authRefusal) refused(err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.told {
		return
	}
	a.told = true
	who := "this connection's user"
	if a.user != "" {
		who = fmt.Sprintf("NATS user %q", a.user)
	}
	a.log.Error("NATS refused to let "+who+" reconnect: the password/credentials were refused: re-run corral nats-auth "+
		"(and reload nats-server) or fix the secret this process reads; it keeps trying and is not ready until they work",
		"user", a.user, "err", err)
}

// reconnected ends an outage, saying so when it was told.
func (a *authRefusal) reconnected() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.told {
		a.told = false
		a.log.Info("NATS took the credentials again", "user", a.user)
	}
}

// closedForGood logs a connection closed with an error standing: nats.go closed it on its own,
// or the process closed it as it stops (nats.go does not tell which), so it says both. A
// refusal of a subject or a slow consumer leaves an error standing that closes nothing.
func closedForGood(nc *nats.Conn, log *slog.Logger) {
	err := nc.LastError()
	if err == nil || errors.Is(err, nats.ErrPermissionViolation) || errors.Is(err, nats.ErrSlowConsumer) ||
		errors.Is(err, nats.ErrMaxSubscriptionsExceeded) {
		return
	}
	log.Warn("the NATS connection is closed: unless this process is stopping, it no longer reconnects, and its /healthz "+
		"fails so that it is restarted (restart it by hand if nothing watches it)", "err", err)
}
