package console

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
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
//
// The handle is sealed (AES-GCM under a key derived from the principal's own key, Viewer.Key, the
// cookie's name as associated data): browsers send a site's cookies to its every port, and a
// server there must not learn a handle, which drives the device as its holder on /mcp.

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

// sealer is the AEAD of the lease cookies.
func (k consoleKeys) sealer() cipher.AEAD {
	block, err := aes.NewCipher(k.seal[:32])
	if err != nil {
		panic(err) // a 32-byte key always makes a cipher
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		panic(err)
	}
	return aead
}

// sealHeld is the cookie value of h: a random nonce and the sealed JSON, base64url.
func (k consoleKeys) sealHeld(h heldLease) string {
	aead := k.sealer()
	b, _ := json.Marshal(h)
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(b)+aead.Overhead())
	_, _ = rand.Read(nonce)
	return base64.RawURLEncoding.EncodeToString(aead.Seal(nonce, nonce, b, []byte(heldName(h.Serial))))
}

// openHeld decodes the value of the cookie called name; false for one that is not a held
// lease sealed by this farm under that name.
func (k consoleKeys) openHeld(name, value string) (heldLease, bool) {
	aead := k.sealer()
	b, err := base64.RawURLEncoding.DecodeString(value)
	if err != nil || len(b) < aead.NonceSize() {
		return heldLease{}, false
	}
	plain, err := aead.Open(nil, b[:aead.NonceSize()], b[aead.NonceSize():], []byte(name))
	if err != nil {
		return heldLease{}, false
	}
	var h heldLease
	if json.Unmarshal(plain, &h) != nil || h.Principal == "" || h.Serial == "" || h.Handle == "" || heldName(h.Serial) != name {
		return heldLease{}, false
	}
	return h, true
}

// openHeld opens the cookie called name of a lease v acquired, under any key v's cookies are
// taken under (keysTaken).
func (c *Console) openHeld(v Viewer, name, value string) (heldLease, bool) {
	for _, k := range c.keysTaken(v) {
		if h, ok := k.openHeld(name, value); ok {
			return h, true
		}
	}
	return heldLease{}, false
}

// heldHandle is the handle of serial's lease this session acquired as v; "" for none.
func (c *Console) heldHandle(r *http.Request, v Viewer, serial string) string {
	name := heldName(serial)
	ck, err := r.Cookie(name)
	if err != nil {
		return ""
	}
	h, ok := c.openHeld(v, name, ck.Value)
	if !ok || h.Principal != v.Name || h.Serial != serial {
		return ""
	}
	return h.Handle
}

// heldAll lists the leases this session acquired as v.
func (c *Console) heldAll(r *http.Request, v Viewer) []heldLease {
	var out []heldLease
	for _, ck := range r.Cookies() {
		if !strings.HasPrefix(ck.Name, heldPrefix) {
			continue
		}
		if h, ok := c.openHeld(v, ck.Name, ck.Value); ok && h.Principal == v.Name {
			out = append(out, h)
		}
	}
	return out
}

// heldCurrent lists the leases this session acquired as v that may still be their devices'
// current leases, and drops the cookies of those that are not (released elsewhere, revoked,
// lapsed): only current ones count against maxHeld. A lease is gone when its node lists
// another lease of the device, or the registry shows the device gone or not held by this
// principal's console; when neither is known (its node did not answer), it counts.
func (c *Console) heldCurrent(w http.ResponseWriter, r *http.Request, v Viewer) []heldLease {
	leases, _ := c.leases.get(r.Context())
	ours := broker.Holder{Principal: v.Name, Client: ClientName}.String()
	var out []heldLease
	for _, h := range c.heldAll(r, v) {
		l, listed := leases[h.Serial]
		d, known := c.cfg.Farm.Device(h.Serial)
		switch {
		case listed && subtle.ConstantTimeCompare([]byte(l.HandleSHA256), []byte(broker.HandleHash(h.Handle))) == 1:
			out = append(out, h)
		case listed, !known, d.Holder != ours:
			dropHeld(w, r, h.Serial)
		default:
			out = append(out, h)
		}
	}
	return out
}

// keepHeld sets the cookie of a lease v acquired.
func (c *Console) keepHeld(w http.ResponseWriter, r *http.Request, v Viewer, h heldLease) {
	http.SetCookie(w, &http.Cookie{Name: heldName(h.Serial), Value: c.keysOf(v).sealHeld(h), Path: "/",
		HttpOnly: true, Secure: overTLS(r), SameSite: http.SameSiteStrictMode})
}

// dropHeld removes the cookie of serial's lease.
func dropHeld(w http.ResponseWriter, r *http.Request, serial string) {
	http.SetCookie(w, &http.Cookie{Name: heldName(serial), Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, Secure: overTLS(r), SameSite: http.SameSiteStrictMode})
}

// holds reports whether this session holds serial's current lease: it acquired a lease of it,
// and that lease is the one its node holds now (not one that expired or was revoked since).
func (c *Console) holds(r *http.Request, serial string) bool {
	handle := c.heldHandle(r, viewerFrom(r.Context()), serial)
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
	for _, h := range c.heldAll(r, v) {
		a := c.cfg.Actions.Call(r.Context(), v, "release_device", map[string]any{"serial": h.Serial, "lease": h.Handle})
		c.cfg.Metrics.action("release", outcomeOf(a))
		dropHeld(w, r, h.Serial)
	}
	c.leases.expire()
}
