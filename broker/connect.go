package broker

import (
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
)

// ConnectOptions say how to reach NATS.
type ConnectOptions struct {
	URL string
	// Name labels the connection (shown by `nats server report connections`).
	Name string
	// CredsFile is a NATS credentials file (JWT + nkey).
	CredsFile string
	// TLS: a client certificate and key, and a CA to trust.
	TLSCert, TLSKey, TLSCA string
}

// Connect connects to NATS and keeps reconnecting forever; disconnections are logged.
func Connect(o ConnectOptions, log *slog.Logger) (*nats.Conn, error) {
	opts := []nats.Option{
		nats.Name(o.Name),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250 * time.Millisecond),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				log.Warn("NATS disconnected", "err", err)
			}
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) { log.Info("NATS reconnected", "url", nc.ConnectedUrlRedacted()) }),
	}
	if o.CredsFile != "" {
		opts = append(opts, nats.UserCredentials(o.CredsFile))
	}
	if o.TLSCert != "" || o.TLSKey != "" {
		opts = append(opts, nats.ClientCert(o.TLSCert, o.TLSKey))
	}
	if o.TLSCA != "" {
		opts = append(opts, nats.RootCAs(o.TLSCA))
	}
	nc, err := nats.Connect(o.URL, opts...)
	if err != nil {
		return nil, fmt.Errorf("connect to NATS at %s: %w (is it running? check --nats-url, credentials and TLS options)", redactURLs(o.URL), err)
	}
	return nc, nil
}

// redactURLs returns a comma-separated list of NATS URLs with their passwords (and tokens in
// the user part) replaced, so that an error or a log line never carries a secret.
func redactURLs(urls string) string {
	parts := strings.Split(urls, ",")
	for i, p := range parts {
		u, err := url.Parse(strings.TrimSpace(p))
		if err != nil || u.User == nil {
			continue
		}
		if _, hasPassword := u.User.Password(); hasPassword {
			u.User = url.UserPassword(u.User.Username(), "REDACTED")
		} else {
			u.User = url.User("REDACTED")
		}
		parts[i] = u.String()
	}
	return strings.Join(parts, ",")
}
