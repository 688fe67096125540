package web

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"strings"
	"sync"
	"time"
)

// HostPolicy is which hosts a node's browser devices may load anything from: a list of
// patterns, "example.org" (that host) or "*.example.org" (it and its subdomains). The zero
// policy allows every host.
type HostPolicy struct {
	patterns []string
}

// ParseHostPolicy parses --web-allow: patterns separated by commas; "" allows every host.
func ParseHostPolicy(s string) (HostPolicy, error) {
	var p HostPolicy
	for _, f := range strings.Split(s, ",") {
		f = strings.ToLower(strings.TrimSpace(f))
		if f == "" {
			continue
		}
		host := strings.TrimPrefix(f, "*.")
		if strings.ContainsAny(host, "*/:@ ") {
			return HostPolicy{}, fmt.Errorf("web: %q is not a host pattern: a host (example.org, 10.0.0.7) or *.example.org", f)
		}
		p.patterns = append(p.patterns, f)
	}
	return p, nil
}

// Any says whether the policy allows every host.
func (p HostPolicy) Any() bool { return len(p.patterns) == 0 }

// Allows says whether host (no port) may be loaded from.
func (p HostPolicy) Allows(host string) bool {
	if p.Any() {
		return true
	}
	host = strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	for _, pat := range p.patterns {
		if sub, ok := strings.CutPrefix(pat, "*."); ok {
			if host == sub || strings.HasSuffix(host, "."+sub) {
				return true
			}
		} else if host == pat {
			return true
		}
	}
	return false
}

func (p HostPolicy) String() string { return strings.Join(p.patterns, ",") }

// ErrBlocked is what a browser device says of a URL whose host the node does not allow.
// It is a caller's mistake (device.ErrBadInput): nothing loads.
var ErrBlocked = mistake("the node's --web-allow does not allow this host")

// Proxy is the node's filtering proxy: its browsers send every request through it (loopback
// ones too), and it passes only those to hosts the policy allows. So the policy holds for
// links, redirects, new tabs, frames and a page's own requests, whatever the page does.
type Proxy struct {
	policy HostPolicy
	log    *slog.Logger
	ln     net.Listener
	srv    *http.Server
	fwd    *httputil.ReverseProxy

	mu    sync.Mutex
	conns map[net.Conn]struct{} // CONNECT tunnels, closed by Close
}

// StartProxy listens on a loopback port and filters by policy until Close; log gets a line
// per blocked request.
func StartProxy(policy HostPolicy, log *slog.Logger) (*Proxy, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("web: the browsers' proxy: %w", err)
	}
	p := &Proxy{policy: policy, log: log, ln: ln, conns: map[net.Conn]struct{}{}}
	p.fwd = &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) { r.Out.URL = r.In.URL; r.Out.Host = r.In.Host },
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelDebug)}
	p.srv = &http.Server{Handler: p, ReadHeaderTimeout: 30 * time.Second}
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

// Addr is where the browsers send their requests.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Close stops the proxy and its tunnels.
func (p *Proxy) Close() error {
	err := p.srv.Close()
	p.mu.Lock()
	for c := range p.conns {
		_ = c.Close()
	}
	p.mu.Unlock()
	return err
}

// ServeHTTP passes an allowed request on: CONNECT as a tunnel, anything else forwarded.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	host := r.URL.Hostname()
	if r.Method == http.MethodConnect {
		host, _, _ = net.SplitHostPort(r.Host)
	}
	if !p.policy.Allows(host) {
		p.log.Info("browser request blocked", "host", host)
		http.Error(w, fmt.Sprintf("Corral: %s: %v (allowed: %s)", host, ErrBlocked, p.policy), http.StatusForbidden)
		return
	}
	if r.Method != http.MethodConnect {
		if r.URL.Host == "" {
			http.Error(w, "Corral's browser proxy takes proxy requests only", http.StatusBadRequest)
			return
		}
		p.fwd.ServeHTTP(w, r)
		return
	}
	up, err := net.DialTimeout("tcp", r.Host, 30*time.Second)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		_ = up.Close()
		http.Error(w, "no tunnels here", http.StatusInternalServerError)
		return
	}
	down, _, err := hj.Hijack()
	if err != nil {
		_ = up.Close()
		return
	}
	if _, err := io.WriteString(down, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		_, _ = up.Close(), down.Close()
		return
	}
	p.track(up, down)
	go p.pipe(up, down)
	go p.pipe(down, up)
}

func (p *Proxy) track(cs ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range cs {
		p.conns[c] = struct{}{}
	}
}

// pipe copies one way of a tunnel, and closes both ends when that way ends.
func (p *Proxy) pipe(dst, src net.Conn) {
	_, _ = io.Copy(dst, src)
	_, _ = dst.Close(), src.Close()
	p.mu.Lock()
	delete(p.conns, dst)
	delete(p.conns, src)
	p.mu.Unlock()
}
