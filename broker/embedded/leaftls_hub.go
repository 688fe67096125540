package embedded

import (
	"net"
	"strings"
	"time"
)

// A hub whose leaf port takes TLS sees a site's handshake fail at each of the site's attempts,
// every second or two for as long as it runs, when the site lacks the CA of the hub's
// certificate, and nats-server logs each at ERROR ("ADDR - lid:N - TLS leafnode handshake
// error: REASON", leaftls.go). The hub's log says it instead, for each remote address (the host:
// each attempt comes from a port of its own), at the first failure and then at the first each
// leafErrorReportEvery with the failures since, as the site's own log does; the server's lines
// go to debug. The words read are those leaftls.go names (TestHubSaysOnceASiteFailedItsTLSHandshake
// fails if a new nats-server changes them).

// hubLeafTLSHosts bounds the remote hosts whose failures a hub counts: past it, those not heard
// for leafErrorReportEvery are forgotten (a leaf port open to the internet is tried by many).
const hubLeafTLSHosts = 256

// hubLeafTLSHint is what a hub logs when a leaf connection's TLS handshake fails for reason.
func hubLeafTLSHint(reason string) string {
	return "a site's TLS handshake with this hub's leaf port failed: " + reason + ": most often the site lacks the CA that signed " +
		"the hub's leaf certificate (give it as ca in its --hub-context and restart the site), or reaches the hub by a name the " +
		"certificate does not hold"
}

// hubLeafTLSFailed takes a server error of a hub's server: a leaf connection's failed handshake
// is counted for its remote host, and said at the first and then each leafErrorReportEvery. It
// says whether msg was one.
func (l *serverLog) hubLeafTLSFailed(msg string) bool {
	reason := leafTLSError(msg)
	if reason == "" {
		return false
	}
	from, _, _ := strings.Cut(msg, " - ")
	if host, _, err := net.SplitHostPort(from); err == nil {
		from = host
	}
	l.mu.Lock()
	now := l.now()
	r := l.hubTLSFailures[from]
	if r == nil {
		forgetIdle(l.hubTLSFailures, now)
		r = &refusals{}
		l.hubTLSFailures[from] = r
	}
	n, say := r.count(now, leafErrorReportEvery)
	l.mu.Unlock()
	if say {
		l.log.Error(hubLeafTLSHint(reason), "from", from, "failures", n, "again_in", leafErrorReportEvery)
	}
	return true
}

// forgetIdle drops the hosts not said for leafErrorReportEvery once there are hubLeafTLSHosts.
func forgetIdle(byHost map[string]*refusals, now time.Time) {
	if len(byHost) < hubLeafTLSHosts {
		return
	}
	for host, r := range byHost {
		if now.Sub(r.saidAt) >= leafErrorReportEvery {
			delete(byHost, host)
		}
	}
}
