package main

import (
	"fmt"
	neturl "net/url"
	"os"
	"strings"

	"github.com/corral-farm/corral/internal/redact"
)

// A --gateway URL may carry a user and password (http://user:pw@host/mcp, for a proxy in front
// of a gateway): corral warns of it and never shows the password, as it does a --nats-url's
// (broker/connect_urlwarn.go).

// warnGatewayCredentials warns, once before a command dials, of a password in the --gateway
// URL raw: other users of the machine read a command line (ps), and a gateway takes a bearer
// token, not a URL's password.
func warnGatewayCredentials(raw string) {
	fixed, _ := completeURL(raw)
	u, err := neturl.Parse(fixed)
	if err != nil || u.User == nil {
		return
	}
	fmt.Fprintf(os.Stderr, "corral: warning: the --gateway URL %s carries credentials: on a command line other users of this machine "+
		"can read them (ps); a gateway takes a bearer token, from --token-file FILE or CORRAL_TOKEN\n", redact.URL(raw))
}

// gatewayPasswordHidden is err with the password of the gateway URL url (its user part, as
// given or completed) replaced wherever its text shows it; errors.Is and As still see err.
func gatewayPasswordHidden(err error, url string) error {
	if err == nil {
		return nil
	}
	_, info, _, ok := redact.SplitUserinfo(url)
	if !ok || info == "" {
		return err
	}
	text := strings.ReplaceAll(err.Error(), info+"@", redact.Userinfo(info)+"@")
	if q := fmt.Sprintf("%q", info); q[1:len(q)-1] != info { // as %q quotes it
		text = strings.ReplaceAll(text, q[1:len(q)-1]+"@", redact.Userinfo(info)+"@")
	}
	if text == err.Error() {
		return err
	}
	return &hiddenError{text: text, err: err}
}

// hiddenError is an error shown with a secret taken out of its text.
type hiddenError struct {
	text string
	err  error
}

func (e *hiddenError) Error() string { return e.text }
func (e *hiddenError) Unwrap() error { return e.err }
