package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// appSources are where a node's app_install may take apps from (OpsConfig.AppSources).
type appSources struct {
	list     []string
	anywhere bool // a laptop's node with no list: every URL and every file
}

// anyHost is the source that allows any host whose addresses are all public.
const anyHost = "*"

// allows says whether app (a URL or a path on the node) is among the sources. A path is judged
// as written and again with its symbolic links resolved, so that a link in a source directory
// cannot lead out of it.
func (s appSources) allows(app string) bool {
	if s.anywhere {
		return true
	}
	if isURL(app) {
		u, err := url.Parse(app)
		if err != nil || u.Hostname() == "" {
			return false
		}
		return s.named(u.Hostname()) || s.has(anyHost)
	}
	if !s.inDir(app) {
		return false
	}
	resolved, ok := resolveExisting(app)
	return ok && s.inDir(resolved)
}

// resolveExisting resolves the symbolic links of path's longest part that exists and joins
// the rest to it, so that a path that does not exist is judged where it would lie: through
// a link out of a source directory, /apps/etclink/nothing was allowed, and app_install then
// said "no file at" where /apps/etclink/shadow was refused, which told what exists outside.
// A ".." is refused (after a link it climbs out of the link's target, not of the path as
// written), and so is a link that leads nowhere (what it names may exist elsewhere).
func resolveExisting(path string) (string, bool) {
	if slices.Contains(strings.Split(filepath.ToSlash(path), "/"), "..") {
		return "", false
	}
	p, rest := filepath.Clean(path), ""
	for {
		if resolved, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(resolved, rest), true
		}
		if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
			return "", false // there, but not resolved: a dangling link, or unreadable
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", false
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

func (s appSources) has(src string) bool {
	for _, x := range s.list {
		if x == src {
			return true
		}
	}
	return false
}

// named says whether host is listed by its name or a ".domain" of it: the operator vouches for
// such hosts, which may have local or private addresses.
func (s appSources) named(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	for _, src := range s.list {
		src = strings.ToLower(src)
		if src == host || strings.HasPrefix(src, ".") && strings.HasSuffix(host, src) {
			return true
		}
	}
	return false
}

// inDir says whether path is a source directory or inside one.
func (s appSources) inDir(path string) bool {
	file := filepath.Clean(path)
	for _, src := range s.list {
		if !isAbsPath(src) {
			continue
		}
		dirs := []string{filepath.Clean(src)}
		if resolved, err := filepath.EvalSymlinks(src); err == nil {
			dirs = append(dirs, resolved)
		}
		for _, dir := range dirs {
			if file == dir || strings.HasPrefix(file, dir+string(filepath.Separator)) {
				return true
			}
		}
	}
	return false
}

// String names the sources for an error message.
func (s appSources) String() string {
	if len(s.list) == 0 {
		return "none: its operator names them with --app-sources"
	}
	return strings.Join(s.list, ", ")
}

// transport returns base (http.DefaultTransport when nil) dialling a host that only "*" allows
// at public addresses alone, looked up once so that a second lookup cannot answer otherwise
// (DNS rebinding). A RoundTripper that is not an *http.Transport is the caller's to guard.
func (s appSources) transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	t, ok := base.(*http.Transport)
	if !ok {
		return base
	}
	t = t.Clone()
	dialer := &net.Dialer{}
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		if s.named(host) {
			return dialer.DialContext(ctx, network, addr)
		}
		ips, err := net.DefaultResolver.LookupIPAddr(ctx, host)
		if err != nil {
			return nil, lookupRefusal(ctx, host)
		}
		for _, ip := range ips {
			if !public(ip.IP) {
				return nil, notPublic(host)
			}
		}
		err = fmt.Errorf("%s has no address", host)
		for _, ip := range ips {
			conn, derr := dialer.DialContext(ctx, network, net.JoinHostPort(ip.IP.String(), port))
			if derr == nil {
				return conn, nil
			}
			err = derr
		}
		return nil, err
	}
	return t
}

// notPublic refuses a host that only "*" allows and that resolves to a local or private
// address, or to none (it does not resolve, or the node's DNS did not answer): all in the same
// words, as bad_input, so that a caller learns nothing of the node's network nor of its DNS
// (which names it knows, the resolver's address that net's lookup error carries).
func notPublic(host string) error {
	return BadInput("%s resolves to no public address the node may fetch from: the node fetches from local and private addresses only from hosts its --app-sources names", host)
}

// lookupRefusal is the answer to a failed lookup of host: notPublic, unless the call ended.
func lookupRefusal(ctx context.Context, host string) error {
	if err := ctx.Err(); err != nil {
		return err // its own error says so
	}
	return notPublic(host)
}

// sharedAddressSpace is 100.64.0.0/10 (carrier-grade NAT), which net.IP.IsPrivate leaves out.
var sharedAddressSpace = &net.IPNet{IP: net.IPv4(100, 64, 0, 0), Mask: net.CIDRMask(10, 32)}

// public says whether ip is a global unicast address outside the private, shared and local
// ranges: one that a node may fetch from without being told.
func public(ip net.IP) bool {
	return ip.IsGlobalUnicast() && !ip.IsPrivate() && !sharedAddressSpace.Contains(ip)
}
