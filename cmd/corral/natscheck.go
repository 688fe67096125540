package main

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/nats-io/nats.go"

	"github.com/corral-farm/corral/broker"
)

// A command that will connect to NATS checks, before it starts anything (and for
// --check-config), what the connection would read: the context file, the password, credentials,
// nkey and TLS files, and the URLs. It does not connect: a missing file or a port out of range
// is a mistake of the settings, to be told now rather than after the command started.

// checkNATS resolves o, the connection settings made of the flags n, as broker.Connect does,
// reading each file it names with the same nats.go options, and checks its URLs. Each error
// names where the setting came from: a flag, NATS_CONTEXT, a context file's field or NATS_URL.
func checkNATS(n natsFlags, o broker.ConnectOptions) error {
	if *n.passwordFile != "" && o.PasswordFile == *n.passwordFile {
		if _, err := os.ReadFile(*n.passwordFile); err != nil {
			return fmt.Errorf("--nats-password-file: %w (give the file holding the password of --nats-user)", err)
		}
	}
	r, err := o.Resolved()
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
	var errs []error
	opts := nats.GetDefaultOptions()
	if r.CredsFile != "" {
		src := from("nats-creds", *n.creds, "creds", ctx.Creds, "the credentials file")
		// The option reads the JWT; signing reads the seed, as the connection does.
		err := nats.UserCredentials(r.CredsFile)(&opts)
		if err == nil {
			_, err = opts.SignatureCB([]byte("check"))
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w (give a NATS credentials file: a user JWT and its nkey seed)", src, err))
		}
	}
	if r.NKeyFile != "" {
		if _, err := nats.NkeyOptionFromSeed(r.NKeyFile); err != nil {
			src := from("nats-nkey", *n.nkey, "nkey", ctx.NKey, "the nkey seed file")
			errs = append(errs, fmt.Errorf("%s: %w (give a file holding a user's nkey seed, SU…)", src, err))
		}
	}
	if r.TLSCert != "" || r.TLSKey != "" {
		if err := nats.ClientCert(r.TLSCert, r.TLSKey)(&opts); err != nil {
			src := from("nats-tls-cert", *n.tlsCert, "cert", ctx.Cert, "the TLS client certificate") + " and " +
				from("nats-tls-key", *n.tlsKey, "key", ctx.Key, "the TLS client key")
			errs = append(errs, fmt.Errorf("%s: %w (give a PEM certificate and its key, both)", src, err))
		}
	}
	if r.TLSCA != "" {
		if err := nats.RootCAs(r.TLSCA)(&opts); err != nil {
			src := from("nats-tls-ca", *n.tlsCA, "ca", ctx.CA, "the TLS CA")
			errs = append(errs, fmt.Errorf("%s: %w (give a PEM file of the CA certificates to trust)", src, err))
		}
	}
	urlSrc := from("nats-url", *n.url, "url", ctx.URL, "$NATS_URL")
	if err := checkNATSURLs(r.URL); err != nil {
		errs = append(errs, fmt.Errorf("%s: %w", urlSrc, err))
	}
	return errors.Join(errs...)
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

// checkNATSURLs checks a comma-separated NATS server list as nats.go reads it (a URL without a
// scheme is nats://; no port is the scheme's default), with each port a TCP port. Errors show
// a URL without its password.
func checkNATSURLs(urls string) error {
	var errs []error
	for i, s := range strings.Split(urls, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if !strings.Contains(s, "://") {
			s = "nats://" + s
		}
		u, err := url.Parse(s)
		if err != nil {
			if shown := broker.RedactURLs(s); shown != s {
				// url.Parse's error quotes pieces of the URL: with a '#', '/' or '?' in the
				// password, the password's start as the port (invalid port ":hunt").
				errs = append(errs, fmt.Errorf("server %d, %s, is not a URL (give nats://HOST:PORT; a password with '#', '/' or '?' in it "+
					"percent-encoded, or in --nats-password-file with --nats-user)", i+1, shown))
				continue
			}
			var ue *url.Error
			if errors.As(err, &ue) {
				err = ue.Err // url.Error repeats the URL
			}
			errs = append(errs, fmt.Errorf("server %d is not a URL: %w (give nats://HOST:PORT)", i+1, err))
			continue
		}
		if u.Hostname() == "" {
			errs = append(errs, fmt.Errorf("%s has no host (give nats://HOST:PORT)", redactedURL(u)))
			continue
		}
		if p := u.Port(); p != "" {
			if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
				errs = append(errs, fmt.Errorf("%s: port %s is not a TCP port, 1 to 65535 (NATS listens on 4222 unless told otherwise)", redactedURL(u), p))
			}
		}
	}
	return errors.Join(errs...)
}

// redactedURL is u without its secret: the password, or a token given as its user.
func redactedURL(u *url.URL) string {
	if u.User == nil {
		return u.String()
	}
	if _, ok := u.User.Password(); ok {
		return u.Redacted()
	}
	r := *u
	r.User = url.User("xxxxx")
	return r.String()
}
