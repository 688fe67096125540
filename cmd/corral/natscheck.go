package main

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/corral-farm/corral/broker"
)

// A command that will connect to NATS checks, before it starts anything (and for
// --check-config), what the connection would read: the context file, the password, credentials,
// nkey and TLS files, and the URLs. It does not connect: a missing file or a port out of range
// is a mistake of the settings, to be told now rather than after the command started.

// checkNATS resolves o, the connection settings made of the flags n, and makes its nats.go
// options as broker.Connect does (broker.ConnectOptions.NATSOptions, which reads each file they
// name), and checks its URLs. Each error names where the setting came from: a flag,
// NATS_CONTEXT, a context file's field or NATS_URL.
func checkNATS(n natsFlags, o broker.ConnectOptions) error {
	r, err := o.Resolved()
	if se := (*broker.SettingError)(nil); errors.As(err, &se) && se.Setting == broker.SettingPasswordFile {
		return sourced(se, "--nats-password-file") // the flag's only: a context holds the password itself
	}
	if err != nil {
		return fmt.Errorf("%s: %w", contextSource(n, o), err)
	}
	var ctx broker.NATSContext
	if r.Context != "" {
		ctx, _ = broker.ReadNATSContext(r.Context) // Resolved read it: it is there
	}
	// from names a setting's source: its flag, else the context's field, else other.
	from := func(flag, flagValue, field, ctxValue, other string) string {
		switch {
		case flagValue != "":
			return "--" + flag
		case ctxValue != "":
			return fmt.Sprintf("the %s of NATS context %s", field, r.Context)
		}
		return other
	}
	sources := map[broker.Setting]string{
		broker.SettingCreds: from("nats-creds", *n.creds, "creds", ctx.Creds, "the credentials file"),
		broker.SettingNKey:  from("nats-nkey", *n.nkey, "nkey", ctx.NKey, "the nkey seed file"),
		broker.SettingTLSCert: from("nats-tls-cert", *n.tlsCert, "cert", ctx.Cert, "the TLS client certificate") + " and " +
			from("nats-tls-key", *n.tlsKey, "key", ctx.Key, "the TLS client key"),
		broker.SettingTLSCA: from("nats-tls-ca", *n.tlsCA, "ca", ctx.CA, "the TLS CA"),
	}
	var errs []error
	if _, err := r.NATSOptions(); err != nil {
		for _, err := range joined(err) {
			if se := (*broker.SettingError)(nil); errors.As(err, &se) {
				err = sourced(se, sources[se.Setting]) // a setting without a source here keeps broker's name
			}
			errs = append(errs, err)
		}
	}
	urlSrc := from("nats-url", *n.url, "url", ctx.URL, "$NATS_URL")
	if err := checkNATSURLs(r.URL); err != nil {
		errs = append(errs, badValue(fmt.Errorf("%s: %w", urlSrc, err))) // a value refused; the files above are read
	}
	return errors.Join(errs...)
}

// sourced is se named by where its setting came from, when known.
func sourced(se *broker.SettingError, source string) error {
	named := *se
	named.Source = source
	return &named
}

// joined is the errors err joins, or err alone.
func joined(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// contextSource names where the context o reads came from, for its errors.
func contextSource(n natsFlags, o broker.ConnectOptions) string {
	switch {
	case *n.context != "" && o.Context == *n.context:
		return "--nats-context"
	case o.Context == "" && os.Getenv("NATS_CONTEXT") != "":
		return fmt.Sprintf("NATS_CONTEXT=%q (a .json file, or the name of a natscli context: nats context ls lists them)", os.Getenv("NATS_CONTEXT"))
	case o.Context == localAdminContext:
		return "the admin context of the corral up in this directory"
	case o.Context != "":
		return "the natscli context selected with nats context select"
	}
	return "NATS settings"
}

// checkNATSURLs checks a comma-separated NATS server list as nats.go reads it (broker.ParseURL;
// no port is the scheme's default), with each port a TCP port. Errors show a URL as
// broker.RedactURLs does, without its password or token.
func checkNATSURLs(urls string) error {
	var errs []error
	for i, s := range strings.Split(urls, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		shown := broker.RedactURLs(s)
		u, err := broker.ParseURL(s)
		if err != nil {
			var ue *url.Error
			if errors.As(err, &ue) {
				err = ue.Err // url.Error repeats the URL, one without credentials (ParseURL hides the others')
			}
			server, hint := fmt.Sprintf("server %d", i+1), "give nats://HOST:PORT"
			if shown != s {
				// url.Parse stops a password at a '#', '/' or '?', and reads the rest as the host.
				server += ", " + shown + ","
				hint += "; a password with '#', '/' or '?' in it percent-encoded, or in --nats-password-file with --nats-user"
			}
			errs = append(errs, fmt.Errorf("%s is not a URL: %w (%s)", server, err, hint))
			continue
		}
		if u.Hostname() == "" {
			errs = append(errs, fmt.Errorf("%s has no host (give nats://HOST:PORT)", shown))
			continue
		}
		if p := u.Port(); p != "" {
			if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
				errs = append(errs, fmt.Errorf("%s: port %s is not a TCP port, 1 to 65535 (NATS listens on 4222 unless told otherwise)", shown, p))
			}
		}
	}
	return errors.Join(errs...)
}
