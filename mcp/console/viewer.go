package console

import (
	"context"
	"net/http"
	"net/url"
	"strings"
)

// cookieName holds the viewer's login (login_cookie.go): a MAC'd name and expiry, never the
// token. HttpOnly (no script reads it), SameSite=Strict (no other site's page sends it), Secure
// over TLS, for the browser's session only. Stateless rather than a session of the gateway's:
// gateways keep no state a restart would lose, and any gateway of the farm takes it.
const cookieName = "corral_console"

// maxLoginBody bounds the login form.
const maxLoginBody = 8 << 10

type viewerKey struct{}

func viewerFrom(ctx context.Context) Viewer {
	v, _ := ctx.Value(viewerKey{}).(Viewer)
	return v
}

// withViewer is r for viewer v, limited to the tools the gateway serves: a gateway whose
// --tools leave screenshot out shows no one a live screen, whatever their token.
func (c *Console) withViewer(r *http.Request, v Viewer) *http.Request {
	if c.cfg.Actions != nil {
		v.served = c.cfg.Actions.Serves
	}
	return r.WithContext(context.WithValue(r.Context(), viewerKey{}, v))
}

// identify finds the viewer of r: Anonymous without authentication; else the token of the
// Authorization header (as /mcp takes it) or the login cookie, which it renews (w). reason
// says why there is none.
func (c *Console) identify(w http.ResponseWriter, r *http.Request) (v Viewer, reason string) {
	if t, ok := bearerOf(r); ok {
		return c.viewerOf(t)
	}
	v, reason = c.cookieViewer(r)
	if reason == "" && c.cfg.Authenticate != nil {
		_, exp, _ := c.loginOf(r)
		c.renewLogin(w, r, v, exp)
	}
	return v, reason
}

// cookieViewer is the viewer of r's login cookie (Anonymous without authentication); reason
// says why there is none.
func (c *Console) cookieViewer(r *http.Request) (v Viewer, reason string) {
	if c.cfg.Authenticate == nil {
		return Anonymous, ""
	}
	if v, _, ok := c.loginOf(r); ok {
		return v, ""
	}
	if hasLoginCookie(r) {
		return Viewer{}, ReasonBadToken
	}
	return Viewer{}, ReasonNoToken
}

// viewerOf is the viewer a token names; reason says why there is none.
func (c *Console) viewerOf(token string) (v Viewer, reason string) {
	if c.cfg.Authenticate == nil {
		return Anonymous, ""
	}
	if token == "" {
		return Viewer{}, ReasonNoToken
	}
	if v, ok := c.cfg.Authenticate(token); ok {
		return v, ""
	}
	return Viewer{}, ReasonBadToken
}

// bearerOf is the token of r's Authorization header, as /mcp takes it.
func bearerOf(r *http.Request) (token string, ok bool) {
	scheme, t, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimSpace(t), true
}

// badLoginWords says why r's credentials are refused: the token of its Authorization header
// (which identify reads first), or its login cookie, which expires and ends with a changed token.
func badLoginWords(r *http.Request) string {
	if _, ok := bearerOf(r); ok {
		return "The bearer token of the Authorization header is not valid for this gateway."
	}
	return "Your login is no longer valid for this gateway: it expired, or your token was changed."
}

// refused counts and logs a request without a viewer; never the token.
func (c *Console) refused(r *http.Request, reason string) {
	if c.cfg.Denied != nil {
		c.cfg.Denied(r, reason)
		return
	}
	c.log.Info("console: refused unauthenticated request", "reason", reason, "remote", r.RemoteAddr, "path", r.URL.Path)
}

// page wraps a page handler: a ?token= is taken once (cookie set, then a redirect to the
// same page without it, so the token stays in neither the address bar nor the history),
// unless another site sent the browser there (loginFromElsewhere); a request without a viewer
// gets the login form.
func (c *Console) page(h func(http.ResponseWriter, *http.Request)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if c.cfg.Authenticate != nil && r.URL.Query().Has("token") {
			q := r.URL.Query()
			token := q.Get("token")
			q.Del("token")
			next := (&url.URL{Path: r.URL.Path, RawQuery: q.Encode()}).String()
			if loginFromElsewhere(r) {
				c.log.Info("console: refused a ?token= login another site sent", "remote", r.RemoteAddr, "path", r.URL.Path,
					"sec_fetch_site", r.Header.Get("Sec-Fetch-Site"))
				c.loginForm(w, r, next, loginLinkRefused, http.StatusForbidden)
				return
			}
			v, ok := c.cfg.Authenticate(token)
			if !ok {
				c.refused(r, ReasonBadToken)
				c.loginForm(w, r, next, "That token is not valid for this gateway.", http.StatusUnauthorized)
				return
			}
			c.setLogin(w, r, v)
			http.Redirect(w, r, next, http.StatusSeeOther)
			return
		}
		v, reason := c.identify(w, r)
		if reason != "" {
			msg := ""
			if reason == ReasonBadToken {
				msg = badLoginWords(r) + " Log in again."
			}
			c.refused(r, reason)
			c.loginForm(w, r, r.URL.RequestURI(), msg, http.StatusUnauthorized)
			return
		}
		h(w, c.withViewer(r, v))
	}
}

// api wraps a data handler: without a viewer, 401 and a line saying what to do.
func (c *Console) api(h func(http.ResponseWriter, *http.Request)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		v, reason := c.identify(w, r)
		if reason != "" {
			c.refused(r, reason)
			w.Header().Set("WWW-Authenticate", `Bearer realm="corral"`)
			msg := "unauthorized: log in to the console (open / and give your token), or send 'Authorization: Bearer <token>' (docs/console.md)"
			if reason == ReasonBadToken {
				msg = "unauthorized: " + badLoginWords(r) + " Log in to the console again (open / and give your token), or send a valid 'Authorization: Bearer <token>' (docs/console.md)"
			}
			http.Error(w, msg, http.StatusUnauthorized)
			return
		}
		h(w, c.withViewer(r, v))
	}
}

// login takes the token of the login form.
func (c *Console) login(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxLoginBody)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad login form: "+err.Error(), http.StatusBadRequest)
		return
	}
	if _, msg := c.checkPost(r); msg != "" {
		http.Error(w, msg, http.StatusForbidden)
		return
	}
	next := localPath(r.PostFormValue("next"))
	if c.cfg.Authenticate == nil {
		http.Redirect(w, r, next, http.StatusSeeOther)
		return
	}
	token := strings.TrimSpace(r.PostFormValue("token"))
	v, ok := c.cfg.Authenticate(token)
	if token == "" || !ok {
		reason := ReasonBadToken
		if token == "" {
			reason = ReasonNoToken
		}
		c.refused(r, reason)
		c.loginForm(w, r, next, "That token is not valid for this gateway.", http.StatusUnauthorized)
		return
	}
	c.setLogin(w, r, v)
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// logout forgets the token, after giving back the leases the console session holds: no one
// else could end them before they lapse.
func (c *Console) logout(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxLoginBody)
	if _, msg := c.checkPost(r); msg != "" {
		http.Error(w, msg, http.StatusForbidden)
		return
	}
	if v, reason := c.cookieViewer(r); reason == "" {
		c.releaseAll(w, r, v)
	}
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, Secure: overTLS(r), SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// localPath returns p if it is a path of this site ("/devices/x"), else "/": a login must not
// send the browser elsewhere.
func localPath(p string) string {
	u, err := url.Parse(p)
	if err != nil || p == "" || !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.HasPrefix(p, "/\\") ||
		u.Scheme != "" || u.Host != "" {
		return "/"
	}
	return p
}
