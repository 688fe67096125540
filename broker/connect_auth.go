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

// closedForGood logs a connection nats.go closed on its own (not Close): it no longer
// reconnects, and the process's /healthz fails so that it is restarted (ConnAlive).
func closedForGood(nc *nats.Conn, log *slog.Logger) {
	if err := nc.LastError(); err != nil {
		log.Error("the NATS connection is closed for good: this process no longer reconnects; its /healthz fails "+
			"so that it is restarted (restart it by hand if nothing watches it)", "err", err)
	}
}
