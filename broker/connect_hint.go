package broker

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/nats-io/nats.go"
)

// connectHint says what to check when nats.Connect failed with err: the credentials NATS
// refused, a URL that is not one, else whether the server runs at all. (A file that cannot be
// used, NATSOptions told before dialling.)
func connectHint(o ConnectOptions, err error) string {
	if errors.Is(err, nats.ErrAuthorization) || strings.Contains(strings.ToLower(err.Error()), "authorization") {
		return authHint(o)
	}
	if ue := (*url.Error)(nil); errors.As(err, &ue) && ue.Op == "parse" {
		return "check --nats-url (or the context's URL, or $NATS_URL): give nats://HOST:PORT, and a password in --nats-password-file, not in the URL"
	}
	return "is it running? check --nats-url, credentials and TLS options, or give the farm's context: --nats-context (or $NATS_CONTEXT) DATA/nats/admin.json of corral up"
}

// authHint says what to do when NATS refused the connection's credentials: with none given,
// which to give; with some, which were refused (the URL's, which nats.go prefers, or the
// options'), and where the right ones are.
func authHint(o ConnectOptions) string {
	where := "corral up writes a context per role into its --data directory's nats/ (admin.json for the operator " +
		"commands), corral nats-auth into its --dir (node-ID.json for a node, gateway.json, vision.json)"
	if role, node, ok := RoleOfUser(o.user()); ok {
		where = fmt.Sprintf("the %s role's context is %s.json, which corral nats-auth writes into its --dir "+
			"(corral up into its --data directory's nats/)", role, UserName(role, node))
	}
	switch {
	case o.urlUser != "":
		return fmt.Sprintf("NATS refused user %q of the NATS URL: wrong password? Check the URL's password against the server's users "+
			"(better: take it out of the URL, and give --nats-user with --nats-password-file), or give --nats-context with the "+
			"user's context: %s", o.urlUser, where)
	case o.urlToken:
		return "NATS refused the token in the NATS URL: check it against the server's, or give --nats-context with a role's context: " + where
	case o.User != "" && o.password == "":
		return fmt.Sprintf("NATS refused user %q, for which no password was given: give --nats-password-file FILE (or set "+
			"$CORRAL_NATS_PASSWORD), or give --nats-context with the user's context: %s", o.User, where)
	case o.User != "":
		return fmt.Sprintf("NATS refused user %q: wrong password? Check --nats-password-file (or the context's password, "+
			"or $CORRAL_NATS_PASSWORD) against the server's users, or give --nats-context with the user's context: %s", o.User, where)
	case o.CredsFile != "" || o.NKeyFile != "":
		return "NATS refused the credentials given (--nats-creds or --nats-nkey): check they are a user of this server, " +
			"or give --nats-context with a role's context: " + where
	}
	return "NATS wants credentials: give --nats-context FILE (" + where + "), " +
		"or --nats-user and --nats-password-file, --nats-nkey or --nats-creds"
}
