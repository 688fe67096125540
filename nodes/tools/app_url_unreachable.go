package tools

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"syscall"
)

// downloadFailed is the answer to a download of u (shown without secrets) that got no HTTP
// answer: bad_input when the URL's host has no DNS name or nothing listens at its port, the
// caller's URL as much as a 404 is; else err, a driver error (the node's network or DNS, a
// timeout, a server that cut the connection), as before.
func downloadFailed(u *url.URL, shown string, err error) error {
	var dns *net.DNSError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return BadInput("download %s: nothing listens at %s (connection refused); check the appUrl's host and port, and that its server runs",
			shown, hostPort(u))
	case errors.As(err, &dns) && dns.IsNotFound:
		return BadInput("download %s: the host %s does not exist (DNS: no such host); check the appUrl's host", shown, u.Hostname())
	}
	return fmt.Errorf("download %s: %w", shown, scrubURLError(err))
}

// hostPort is u's host and port, the scheme's default port if it names none.
func hostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return net.JoinHostPort(u.Hostname(), port)
}
