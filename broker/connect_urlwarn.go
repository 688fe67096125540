package broker

import (
	"log/slog"
	"os"
)

// warnURLCredentials warns of a password or token in used, the URL given (as o.URL) or read
// from NATS_URL, naming where it came from: on a command line (--nats-url) other users of the
// machine read it (ps); elsewhere (CORRAL_NATS_URL, a config file, NATS_URL) it is still in a
// URL, which tools print and every child process inherits, not in a secret's place. A
// context's URL is not warned of: the context file is where natscli keeps a password.
func warnURLCredentials(o ConnectOptions, used string, log *slog.Logger) {
	if !hasCredentials(used) {
		return
	}
	const instead = "give the password in --nats-password-file or $CORRAL_NATS_PASSWORD with --nats-user, or use --nats-context"
	var from string
	switch {
	case o.URL != "" && o.URLSource == "":
		log.Warn("the NATS URL carries credentials: on a command line (--nats-url) other users of this machine can read them (ps); "+instead,
			"url", RedactURLs(used))
		return
	case o.URL != "":
		from = o.URLSource
	case used == os.Getenv("NATS_URL"):
		from = "$NATS_URL"
	default:
		return
	}
	log.Warn("the NATS URL from "+from+" carries credentials: a URL is no place for a secret "+
		"(tools print URLs, child processes inherit the environment); "+instead, "url", RedactURLs(used))
}
