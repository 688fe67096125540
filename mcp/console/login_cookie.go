package console

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The login cookie holds a console-only credential, never the token: browsers do not keep a
// site's cookies apart by port, so any other server on the gateway's host (a Grafana on :3000,
// a dev server) receives them with ordinary navigation. What it receives is
//
//	1.<principal's name>.<expiry>.<MAC>
//
// the MAC keyed by the principal's own key (Viewer.Key) over the name, the principal's token hash
// as the policy holds it (Viewer.Credential) and the expiry. It is useless on /mcp (which takes
// tokens only) and as a lease, it ends when the token changes or leaves the policy (the MAC no
// longer matches), and it lapses loginTTL after its last renewal. Any gateway with the same
// policy and the farm's gateway secret (in Viewer.Key) checks it, with no other state shared.

const (
	// loginTTL is how long a login lasts without use; the pages renew it while they are open.
	loginTTL = 12 * time.Hour
	// loginRenew is how often a used login's expiry moves on (each renewal sets a cookie).
	loginRenew = 10 * time.Minute
	loginLabel = "corral console login v1"
	// loginSkew is how far past loginTTL a login's expiry may lie: gateways' clocks differ a little.
	loginSkew = time.Minute
)

// consoleKeys are the keys of the console's cookies and CSRF tokens, each derived from a
// viewer's key (or the farm's shared key) with a label of its own.
type consoleKeys struct {
	login, seal, csrf []byte
}

// deriveKeys derives the console's keys from secret; a nil secret gets a random one (a console
// alone: its cookies then work with it only).
func deriveKeys(secret []byte) consoleKeys {
	if len(secret) == 0 {
		secret = make([]byte, 32)
		_, _ = rand.Read(secret)
	}
	derive := func(label string) []byte {
		m := hmac.New(sha256.New, secret)
		m.Write([]byte(label))
		return m.Sum(nil)
	}
	return consoleKeys{login: derive(loginLabel), seal: derive("corral console lease seal v1"), csrf: derive("corral console csrf v1")}
}

// keysOf are the keys of v's cookies and CSRF tokens: from v's own key, so that a policy change
// that leaves v's token alone leaves them valid; the farm's for a viewer without one.
func (c *Console) keysOf(v Viewer) consoleKeys {
	if len(v.Key) == 0 {
		return c.keys
	}
	return deriveKeys(v.Key)
}

// keysTaken are the keys v's cookies and CSRF tokens are taken under: keysOf(v)'s, and those of
// its other key, which a gateway of another Corral version issues under during a roll.
func (c *Console) keysTaken(v Viewer) []consoleKeys {
	other := v.OtherKey
	if len(v.Key) == 0 {
		other = c.cfg.OtherKey
	}
	if len(other) == 0 {
		return []consoleKeys{c.keysOf(v)}
	}
	return []consoleKeys{c.keysOf(v), deriveKeys(other)}
}

// loginMAC is the MAC of a login of principal name, whose token hash is credential, until exp.
func (k consoleKeys) loginMAC(name string, credential []byte, exp int64) []byte {
	m := hmac.New(sha256.New, k.login)
	m.Write([]byte(name))
	m.Write([]byte{0})
	m.Write(credential)
	m.Write([]byte{0})
	m.Write([]byte(strconv.FormatInt(exp, 10)))
	return m.Sum(nil)
}

// loginValue is the login cookie's value for v until exp.
func (c *Console) loginValue(v Viewer, exp time.Time) string {
	e := exp.Unix()
	return "1." + base64.RawURLEncoding.EncodeToString([]byte(v.Name)) + "." + strconv.FormatInt(e, 10) + "." +
		base64.RawURLEncoding.EncodeToString(c.keysOf(v).loginMAC(v.Name, v.Credential, e))
}

// setLogin keeps v's login in the cookie, for loginTTL from now.
func (c *Console) setLogin(w http.ResponseWriter, r *http.Request, v Viewer) {
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: c.loginValue(v, c.now().Add(loginTTL)), Path: "/", HttpOnly: true,
		Secure: overTLS(r), SameSite: http.SameSiteStrictMode})
}

// loginOf is the viewer the login cookie of r names now, and the login's expiry; false for no
// cookie, or one that is malformed, forged, expired, lasting longer than any gateway issues
// (loginTTL), or of a token the policy no longer has.
func (c *Console) loginOf(r *http.Request) (Viewer, time.Time, bool) {
	ck, err := r.Cookie(cookieName)
	if err != nil || c.cfg.Named == nil {
		return Viewer{}, time.Time{}, false
	}
	parts := strings.Split(ck.Value, ".")
	if len(parts) != 4 || parts[0] != "1" {
		return Viewer{}, time.Time{}, false
	}
	name, err1 := base64.RawURLEncoding.DecodeString(parts[1])
	exp, err2 := strconv.ParseInt(parts[2], 10, 64)
	mac, err3 := base64.RawURLEncoding.DecodeString(parts[3])
	if err1 != nil || err2 != nil || err3 != nil || !c.now().Before(time.Unix(exp, 0)) {
		return Viewer{}, time.Time{}, false
	}
	if time.Unix(exp, 0).After(c.now().Add(loginTTL + loginSkew)) { // no gateway issues one that long
		return Viewer{}, time.Time{}, false
	}
	v, ok := c.cfg.Named(string(name))
	if !ok {
		return Viewer{}, time.Time{}, false
	}
	for _, k := range c.keysTaken(v) {
		if hmac.Equal(mac, k.loginMAC(v.Name, v.Credential, exp)) {
			return v, time.Unix(exp, 0), true
		}
	}
	return Viewer{}, time.Time{}, false
}

// hasLoginCookie reports whether r carries a login cookie at all (valid or not).
func hasLoginCookie(r *http.Request) bool {
	ck, err := r.Cookie(cookieName)
	return err == nil && ck.Value != ""
}

// renewLogin moves a used login's expiry on, at most every loginRenew: an open page keeps its
// login, one left alone for loginTTL loses it.
func (c *Console) renewLogin(w http.ResponseWriter, r *http.Request, v Viewer, exp time.Time) {
	if exp.Sub(c.now()) < loginTTL-loginRenew {
		c.setLogin(w, r, v)
	}
}

// csrfFor is the CSRF token of session sid for the login of r: the principal its login cookie
// names, under that principal's keys; before a login (or without one that is valid), no
// principal, under the farm's.
func (c *Console) csrfFor(r *http.Request, sid string) string {
	v, _, ok := c.loginOf(r)
	if !ok {
		return c.keys.csrfToken(sid, "")
	}
	return c.keysOf(v).csrfToken(sid, v.Name)
}

// csrfTaken reports whether given is a CSRF token of session sid for the login of r, under
// any key it is taken under (keysTaken).
func (c *Console) csrfTaken(r *http.Request, sid, given string) bool {
	v, _, ok := c.loginOf(r)
	if !ok {
		v = Viewer{} // no principal: the farm's keys
	}
	for _, k := range c.keysTaken(v) {
		if hmac.Equal([]byte(given), []byte(k.csrfToken(sid, v.Name))) {
			return true
		}
	}
	return false
}
