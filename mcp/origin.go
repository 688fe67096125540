package mcp

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
)

// originCheck protects a gateway against DNS rebinding and cross-site requests from browsers:
// on a loopback connection the Host header must name loopback, and on every connection an
// Origin header, when a browser sends one, must be loopback. Entries of --allowed-origins
// add hosts and origins (a proxy's name, a web client's origin).
//
// mcp-go checks the Host of loopback requests too (WithDisableLocalhostProtection), but
// neither takes exceptions nor checks Origin nor covers /metrics; the gateway turns its check
// off and does both here, once, for every path.
type originCheck struct {
	any   bool // "*": no checks (a proxy in front checks instead)
	allow []hostRule
}

// hostRule is one entry of --allowed-origins: a host, with a port and a scheme if given.
type hostRule struct {
	scheme, host, port string
}

// ValidateOrigins checks --allowed-origins entries: "*", a host ("corral.example.com"), a host
// and port ("corral.example.com:8443"), or an origin ("https://agents.example.com").
func ValidateOrigins(entries []string) error {
	_, err := newOriginCheck(entries)
	return err
}

func newOriginCheck(entries []string) (*originCheck, error) {
	c := &originCheck{}
	for _, e := range entries {
		e = strings.TrimSpace(e)
		switch e {
		case "":
			continue
		case "*":
			c.any = true
			continue
		}
		r, err := parseHostRule(e)
		if err != nil {
			return nil, fmt.Errorf("--allowed-origins %q: %w; give a host (corral.example.com), host:port, or an origin (https://app.example.com)", e, err)
		}
		c.allow = append(c.allow, r)
	}
	return c, nil
}

func parseHostRule(e string) (hostRule, error) {
	var r hostRule
	if strings.Contains(e, "://") {
		u, err := url.Parse(e)
		if err != nil {
			return r, errors.New("not a URL")
		}
		if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil || u.Fragment != "" {
			return r, errors.New("an origin has no path, query or user")
		}
		r.scheme, r.host, r.port = strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	} else {
		r.host, r.port = splitHost(e)
	}
	if r.host == "" || strings.ContainsAny(r.host, "/@?# ") {
		return r, errors.New("no host name")
	}
	return r, nil
}

// splitHost splits "host", "host:port", "[::1]:port" into a lower-case host and a port.
func splitHost(hostport string) (host, port string) {
	h, p, err := net.SplitHostPort(hostport)
	if err != nil {
		h, p = strings.Trim(hostport, "[]"), ""
	}
	return strings.ToLower(h), p
}

// isLoopbackName reports whether host (without port) names the loopback interface.
func isLoopbackName(host string) bool {
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// hostAllowed reports whether a Host header may reach a loopback listener.
func (c *originCheck) hostAllowed(hostport string) bool {
	host, port := splitHost(hostport)
	if c.any || isLoopbackName(host) {
		return true
	}
	for _, r := range c.allow {
		// A Host without a port is the client's default port, which an origin rule implies.
		if r.host == host && (r.ruledPort() == "" || r.ruledPort() == port || (port == "" && r.port == "")) {
			return true
		}
	}
	return false
}

// ruledPort is the port r admits: its own, else its scheme's default (https://x is x:443);
// "" for a bare host, which admits any port.
func (r hostRule) ruledPort() string {
	if r.port != "" {
		return r.port
	}
	return defaultPort(r.scheme)
}

// defaultPort is a scheme's port when a URL names none; "" for no scheme.
func defaultPort(scheme string) string {
	return map[string]string{"http": "80", "https": "443"}[scheme]
}

// originAllowed reports whether an Origin header may reach the gateway.
func (c *originCheck) originAllowed(origin string) bool {
	if c.any {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" { // includes the opaque origin "null"
		return false
	}
	if u.User != nil || u.Path != "" || u.RawQuery != "" || u.Fragment != "" {
		return false // a browser's Origin is scheme://host[:port]: http://evil.com@127.0.0.1 is forged
	}
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if isLoopbackName(host) {
		return true
	}
	if port == "" {
		port = defaultPort(scheme)
	}
	for _, r := range c.allow {
		if r.host == host && (r.scheme == "" || r.scheme == scheme) && (r.ruledPort() == "" || r.ruledPort() == port) {
			return true
		}
	}
	return false
}

// loopbackConn reports whether r arrived on a loopback listener. A TCP listener's address is
// judged by its IP, not by the text of it (String allocates twice, on every request).
func loopbackConn(r *http.Request) bool {
	a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || a == nil {
		return false
	}
	if t, ok := a.(*net.TCPAddr); ok {
		return t.IP.IsLoopback()
	}
	host, _ := splitHost(a.String())
	return isLoopbackName(host)
}

// wrap refuses requests whose Host or Origin the check does not allow, with 403 naming the header.
func (c *originCheck) wrap(g *Gateway, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if loopbackConn(r) && !c.hostAllowed(r.Host) {
			g.forbid(w, r, reasonHost, fmt.Sprintf("forbidden: Host header %q does not name this gateway, which listens on loopback "+
				"(DNS rebinding protection); use http://127.0.0.1 or http://localhost, or add the host with --allowed-origins", r.Host))
			return
		}
		if o := r.Header.Values("Origin"); len(o) > 1 { // the first alone would be judged
			g.forbid(w, r, reasonOrigin, fmt.Sprintf("forbidden: %d Origin headers (cross-site request protection); a request has at most one", len(o)))
			return
		}
		if o := r.Header.Get("Origin"); o != "" && !c.originAllowed(o) {
			g.forbid(w, r, reasonOrigin, fmt.Sprintf("forbidden: Origin header %q is not allowed (cross-site request protection); "+
				"--allowed-origins admits a page served from the gateway's own site (behind a proxy) or a program that sends Origin, "+
				"but a browser page from another origin cannot reach the gateway: it sends no CORS headers", o))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// forbid answers 403, counts and logs the refusal.
func (g *Gateway) forbid(w http.ResponseWriter, r *http.Request, reason, msg string) {
	g.refusedRequest(r, reason, "refused HTTP request", "host", r.Host)
	http.Error(w, msg, http.StatusForbidden)
}
