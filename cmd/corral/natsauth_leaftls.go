package main

import (
	"fmt"
	"net/url"
)

// The server configuration nats-auth writes takes the sites' leaf connections without TLS:
// --ca is the client port's. A site given a CA asks its hub for TLS, which a plain leaf port
// never answers (the site failed for ever), so the sites' leaf contexts take --ca only when
// --leaf-url says the leaf port takes TLS (tls://): the operator gives that port its
// certificate in the hub's leafnodes block.

// leafTLS says whether the sites reach the hub's leaf port over TLS: a tls:// --leaf-url.
func leafTLS(leafURL string) bool {
	u, err := url.Parse(leafURL)
	return err == nil && u.Scheme == "tls"
}

// leafContextCA is the CA the sites' leaf contexts trust: --ca with a tls:// --leaf-url, none
// otherwise, and a note saying so when --ca was given, with how to carry the link over TLS.
func leafContextCA(leafURL, ca string) (string, string) {
	if ca == "" || leafTLS(leafURL) {
		return ca, ""
	}
	return "", fmt.Sprintf("  (the sites' contexts take no --ca: the leafnodes block takes no TLS at %s; to carry the link over TLS, give\n"+
		"   that block tls { cert_file: ..., key_file: ... } and run this again with --leaf-url tls://HOST:PORT: their contexts then take --ca)\n", leafURL)
}

// leafTLSConfigLine is the line of the hub's leafnodes block that says the block needs the
// certificate of a leaf port that takes TLS, "" for one that does not.
func leafTLSConfigLine(leafURL string) string {
	if !leafTLS(leafURL) {
		return ""
	}
	return "  # The sites connect over TLS (--leaf-url tls://): give this port its certificate here,\n" +
		"  # tls { cert_file: \"hub.pem\", key_file: \"hub-key.pem\" }, or nats-server takes no TLS on it.\n"
}
