package broker

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
)

// DefaultURL is where `corral up` serves its embedded NATS.
const DefaultURL = "nats://127.0.0.1:4222"

// ConnectOptions say how to reach NATS. Secrets come from files or the environment, never
// from command-line arguments, and are never logged.
type ConnectOptions struct {
	// URL is the server list; empty: the context's, then NATS_URL, then DefaultURL.
	URL string
	// URLSource names where URL came from when not the command line's --nats-url (e.g.
	// CORRAL_NATS_URL), for the warning of credentials in it.
	URLSource string
	// URLWarned says the credentials in the URL were warned of already (a command's first
	// connect try): its tries again do not repeat it.
	URLWarned bool
	// Name labels the connection (shown by `nats server report connections`).
	Name string
	// Context is a natscli context file (.json); it fills what the other fields leave empty.
	// Empty: NATS_CONTEXT's (EnvNATSContext).
	Context string
	// CredsFile is a NATS credentials file (JWT + nkey).
	CredsFile string
	// NKeyFile is an nkey seed file (a user of the server's nkeys list).
	NKeyFile string
	// User and a password from PasswordFile (or CORRAL_NATS_PASSWORD, or NATS_PASSWORD).
	User, PasswordFile string
	// InboxPrefix of the connection's replies; empty: InboxPrefix(User) when there is a user,
	// else NATS's _INBOX.
	InboxPrefix string
	// TLS: a client certificate and key, and a CA to trust.
	TLSCert, TLSKey, TLSCA string
	// InProcess, when set, connects to a NATS server in this process (corral up's embedded
	// one) without a socket: the same protocol, credentials and permissions, without the
	// loopback TCP's system calls and copies on every message.
	InProcess nats.InProcessConnProvider
	// Refusals, when set, takes the connection's permission refusals (connect_refusals.go):
	// the contexts it watches end at once, and the refusal is not logged (the caller reports
	// it). Without it, a refusal is logged as an error.
	Refusals *Refusals

	password string // resolved from PasswordFile, the context or the environment
	// urlUser is the user of the URL's credentials (nats://user:password@host), which nats.go
	// logs in with rather than User; urlToken says that the URL carries a token instead.
	urlUser  string
	urlToken bool
}

// user is the NATS user the connection logs in as, "" when unknown: the URL's, else User.
func (o ConnectOptions) user() string { return cmp.Or(o.urlUser, o.User) }

// Resolved fills the options from the context file and the environment, and reads the
// password: what Connect will use.
func (o ConnectOptions) Resolved() (ConnectOptions, error) {
	o.Context = NATSContextFile(o.Context)
	if o.Context == "" {
		o.Context = EnvNATSContext()
	}
	if o.Context != "" {
		c, err := ReadNATSContext(o.Context)
		if err != nil {
			return o, err
		}
		o.URL = cmp.Or(o.URL, c.URL)
		o.CredsFile, o.NKeyFile = cmp.Or(o.CredsFile, c.Creds), cmp.Or(o.NKeyFile, c.NKey)
		o.TLSCert, o.TLSKey, o.TLSCA = cmp.Or(o.TLSCert, c.Cert), cmp.Or(o.TLSKey, c.Key), cmp.Or(o.TLSCA, c.CA)
		o.InboxPrefix = cmp.Or(o.InboxPrefix, c.InboxPrefix)
		if o.User == "" {
			o.User, o.password = c.User, c.Password
		}
	}
	o.URL = cmp.Or(o.URL, os.Getenv("NATS_URL"), DefaultURL)
	if o.PasswordFile != "" {
		b, err := os.ReadFile(o.PasswordFile)
		if err != nil {
			return o, &SettingError{Setting: SettingPasswordFile, Err: err, Hint: "give the file holding the password of --nats-user"}
		}
		o.password = strings.TrimSpace(string(b))
	}
	if o.User != "" && o.password == "" {
		o.password = cmp.Or(os.Getenv("CORRAL_NATS_PASSWORD"), os.Getenv("NATS_PASSWORD"))
	}
	if o.User == "" && o.password != "" {
		return o, errors.New("a NATS password was given without a user: give --nats-user too")
	}
	o.urlUser, o.urlToken = urlCredentials(o.URL)
	// A user's permissions allow replies on its own inbox prefix only (InboxPrefix).
	if o.InboxPrefix == "" && o.user() != "" {
		o.InboxPrefix = InboxPrefix(o.user())
	}
	return o, nil
}

// Connect connects to NATS and keeps reconnecting forever; disconnections are logged.
func Connect(o ConnectOptions, log *slog.Logger) (*nats.Conn, error) {
	return ConnectContext(context.Background(), o, log)
}

// ConnectContext is Connect whose connect stops at once when ctx ends (connect_ctx.go), with
// ctx's error: a command's Ctrl-C did not end a connect to a server that did not answer
// before its timeout. ctx bounds the connect only, not the connection it makes.
func ConnectContext(ctx context.Context, o ConnectOptions, log *slog.Logger) (*nats.Conn, error) {
	r, err := o.Resolved()
	if err != nil {
		return nil, err
	}
	if !o.URLWarned {
		warnURLCredentials(o, r.URL, log)
	}
	o = r
	opts, err := o.NATSOptions()
	if err != nil {
		return nil, err
	}
	auth := &authRefusal{user: o.user(), log: log}
	opts = append(opts,
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250*time.Millisecond),
		nats.IgnoreAuthErrorAbort(), // refused credentials may be fixed meanwhile (connect_auth.go)
		nats.ClosedHandler(func(nc *nats.Conn) { closedForGood(nc, log) }),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				log.Warn("NATS disconnected", "err", err)
			}
		}),
		// RedactURLs, not ConnectedUrlRedacted: the password shows as REDACTED, as everywhere else.
		nats.ReconnectHandler(func(nc *nats.Conn) {
			auth.reconnected()
			log.Info("NATS reconnected", "url", RedactURLs(nc.ConnectedUrl()))
		}),
		// A permission violation is a configuration error (a role without a right it needs), or
		// a user asking what its role may not: say which subject, and which of the two it is,
		// rather than let a request time out in silence.
		nats.ErrorHandler(func(_ *nats.Conn, sub *nats.Subscription, err error) {
			if isAuthRefusal(err) {
				auth.refused(err)
				return
			}
			if r := refusalOf(o.user(), err); r != nil {
				if r.Op == "subscribe to" && isProbe(r.Subject) {
					log.Debug("NATS refused the probe subscription: no node can ask whether this client is still there", "err", r)
					return
				}
				if r.Reply && !r.Stale {
					log.Warn("NATS refused", "err", r) // not the caller's doing, nor a role's
					return
				}
				if o.Refusals != nil {
					o.Refusals.refuse(r)
					log.Debug("NATS refused", "err", r)
					return
				}
				log.Error("NATS refused", "err", r)
				return
			}
			if errors.Is(err, nats.ErrSlowConsumer) && sub != nil && isCallerAnswer(sub.Subject) {
				log.Warn("NATS delivered a second answer to a probe of a call's caller, dropped (nats: slow consumer): "+
					"the probe reads the first answer only, so nothing is lost; seen as NATS reconnects", "subject", sub.Subject)
				return
			}
			args := []any{"err", err}
			if sub != nil {
				args = append([]any{"subject", sub.Subject}, args...)
			}
			log.Error("NATS error", args...)
		}),
	)
	// A stalled link is dropped (connect_drop.go) by the dialer that ends the connect with ctx.
	nc, err := connectWithin(ctx, newDroppableDialer(), o.URL, opts...)
	if err != nil {
		at := RedactURLs(o.URL)
		if o.Context != "" {
			at += " (NATS context " + o.Context + ")"
		}
		if errors.Is(err, context.Canceled) { // stopped by the caller (Ctrl-C): nothing to check
			return nil, redactErr(fmt.Errorf("connect to NATS at %s: %w", at, err), o.URL)
		}
		return nil, redactErr(fmt.Errorf("connect to NATS at %s: %w (%s)", at, hideParseError(err, o.URL), connectHint(o, err)), o.URL)
	}
	return nc, nil
}
