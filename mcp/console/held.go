package console

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/corral-farm/corral/broker"
)

// The leases a console session acquired are kept in the browser, one HttpOnly, SameSite=Strict
// cookie per device holding its handle, rather than in the gateway: gateways keep no state a
// restart would lose, and any gateway of the farm serves the next action. One cookie per device
// (not one for all) so that two tabs acquiring two devices at once cannot overwrite each other.
// A cookie names the principal that acquired it: a session logged in as another ignores it.

const (
	heldPrefix = "corral_lease_"
	// maxHeld bounds the leases of one console session (a browser keeps about 50 cookies a site).
	maxHeld = 16
)

// heldLease is one cookie's value.
type heldLease struct {
	Principal string `json:"p"`
	Serial    string `json:"s"`
	Handle    string `json:"h"`
}

// heldName is the cookie of serial's lease: a serial may hold characters a cookie name cannot.
func heldName(serial string) string {
	sum := sha256.Sum256([]byte(serial))
	return heldPrefix + hex.EncodeToString(sum[:8])
}

// parseHeld decodes a cookie's value; false for one that is not a held lease.
func parseHeld(value string) (heldLease, bool) {
	b, err := base64.RawURLEncoding.DecodeString(value)
	if err != nil {
		return heldLease{}, false
	}
	var h heldLease
	if json.Unmarshal(b, &h) != nil || h.Principal == "" || h.Serial == "" || h.Handle == "" {
		return heldLease{}, false
	}
	return h, true
}

// heldHandle is the handle of serial's lease this session acquired as v; "" for none.
func heldHandle(r *http.Request, v Viewer, serial string) string {
	ck, err := r.Cookie(heldName(serial))
	if err != nil {
		return ""
	}
	h, ok := parseHeld(ck.Value)
	if !ok || h.Principal != v.Name || h.Serial != serial {
		return ""
	}
	return h.Handle
}

// heldAll lists the leases this session acquired as v.
func heldAll(r *http.Request, v Viewer) []heldLease {
	var out []heldLease
	for _, ck := range r.Cookies() {
		if !strings.HasPrefix(ck.Name, heldPrefix) {
			continue
		}
		if h, ok := parseHeld(ck.Value); ok && h.Principal == v.Name && ck.Name == heldName(h.Serial) {
			out = append(out, h)
		}
	}
	return out
}

// keepHeld sets the cookie of a lease acquired.
func keepHeld(w http.ResponseWriter, r *http.Request, h heldLease) {
	b, _ := json.Marshal(h)
	http.SetCookie(w, &http.Cookie{Name: heldName(h.Serial), Value: base64.RawURLEncoding.EncodeToString(b), Path: "/",
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
}

// dropHeld removes the cookie of serial's lease.
func dropHeld(w http.ResponseWriter, r *http.Request, serial string) {
	http.SetCookie(w, &http.Cookie{Name: heldName(serial), Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
}

// holds reports whether this session holds serial's current lease: it acquired a lease of it,
// and that lease is the one its node holds now (not one that expired or was revoked since).
func (c *Console) holds(r *http.Request, serial string) bool {
	handle := heldHandle(r, viewerFrom(r.Context()), serial)
	if handle == "" {
		return false
	}
	leases, _ := c.leases.get(r.Context())
	l, ok := leases[serial]
	return ok && subtle.ConstantTimeCompare([]byte(l.HandleSHA256), []byte(broker.HandleHash(handle))) == 1
}

// releaseAll gives back the leases the session acquired as v (at logout), and forgets them.
func (c *Console) releaseAll(w http.ResponseWriter, r *http.Request, v Viewer) {
	if c.cfg.Actions == nil {
		return
	}
	for _, h := range heldAll(r, v) {
		a := c.cfg.Actions.Call(r.Context(), v, "release_device", map[string]any{"serial": h.Serial, "lease": h.Handle})
		c.cfg.Metrics.action("release", outcomeOf(a))
		dropHeld(w, r, h.Serial)
	}
	c.leases.expire()
}
