package main

import "os"

// An operator action that talks to NATS alone (release --force, tasks, drain, devices forget)
// refused a --gateway the user had not typed on its command line: CORRAL_GATEWAY, exported for
// the commands that take a gateway, refused it even with NATS_CONTEXT or --nats-context set, as
// its own refusal told the user to set them. A NATS context the user set wins over a gateway
// that did not come from the command line; one typed there is still refused, as asked for.

// natsContextWins reports whether the user set a NATS context (--nats-context, from wherever,
// or $NATS_CONTEXT) and --gateway came from elsewhere than the command line (CORRAL_GATEWAY
// or the --config file). The selected natscli context and DATA/nats/admin.json are defaults,
// not set by the user: they do not win.
func (a *adminFlags) natsContextWins() bool {
	if a.onCommandLine["gateway"] {
		return false
	}
	return a.given("nats-context") || os.Getenv("NATS_CONTEXT") != ""
}
