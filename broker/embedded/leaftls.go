package embedded

import (
	"strings"
)

// A site whose TLS handshake with its hub fails (the hub's certificate is signed by a CA the
// site was not given; the site asks for TLS, with a ca in --hub-context, of a leaf port that
// takes none) tries again every ReconnectEvery. nats-server logs each failure at ERROR when
// the site's side of the handshake fails, and at notice, which Corral's log shows at debug,
// when the hub's does: the site then said nothing at all. The site's log says it, with what to
// do, at the first failure and then about every leafErrorReportEvery, as a cut is said; the
// server's own lines go to debug.

// The server's words read here are nats-server's (v2.15, server/client.go), which a new
// version may change (TestSiteAskingTLSOfAHubWithoutItSaysSo and
// TestSiteDistrustingItsHubsCertificateSaysSoOnce then fail):
//   - the notice closeConnection logs, Noticef("%s connection closed: %s") with the kind
//     "Leafnode" and TLSHandshakeError's ClosedState text "TLS Handshake Failure" (monitor.go);
//   - the error of the site's side, Errorf("TLS %s handshake error: %v%s") with typ "leafnode".

// leafTLSClosed is the server's notice, at each failed attempt, that the handshake failed.
const leafTLSClosed = "Leafnode connection closed: TLS Handshake Failure"

// leafTLSError is the reason of a handshake that failed on the site's side, "" for a server
// error that is none: "ADDR - lid:N - TLS leafnode handshake error: REASON".
func leafTLSError(msg string) string {
	_, reason, _ := strings.Cut(msg, "TLS leafnode handshake error: ")
	return reason
}

// leafTLSHint is what a site logs when its TLS handshake with the hub fails: reason is the
// site's side's, "" when the hub ended it (most often a leaf port without TLS).
func leafTLSHint(reason string) string {
	if reason == "" {
		return "the TLS handshake with the hub failed on the hub's side: this site asks for TLS (ca in --hub-context, a tls:// hub URL, " +
			"or a hub that asked for it since the site started) and the hub's leaf port most likely takes none: turn TLS on in the " +
			"hub's leafnodes block, or drop ca from the site's context and restart the site"
	}
	return "the TLS handshake with the hub failed: " + reason + ": when the hub's leaf certificate is signed by a private CA, " +
		"give that CA as ca in --hub-context (the site's context file) and restart the site; the certificate must name the host of the hub's URL"
}

// leafTLSFailed takes a server notice or error of a site's server: the reason of a handshake
// that failed on the site's side is kept for the notice that ends the attempt, at which the
// failure is said. It says whether msg was one of these.
func (l *serverLog) leafTLSFailed(msg string) bool {
	if reason := leafTLSError(msg); reason != "" {
		l.mu.Lock()
		l.leafTLSReason = reason
		l.mu.Unlock()
		return true
	}
	if !strings.Contains(msg, leafTLSClosed) {
		return false
	}
	l.mu.Lock()
	reason := l.leafTLSReason
	l.leafTLSReason = ""
	n, say := l.leafTLSFailures.count(l.now(), leafErrorReportEvery)
	l.mu.Unlock()
	if say {
		l.log.Error(leafTLSHint(reason), "failures", n, "again_in", leafErrorReportEvery)
	}
	return true
}
