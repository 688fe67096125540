package console

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
)

// Every POST of the console (actions, login, logout) must come from one of its own pages. The
// gateway's Host/Origin check refuses other hosts' pages, but it lets through every loopback
// origin, and a page on another port of the same machine is "same-site": the SameSite cookie
// goes with its requests. So a POST also needs
//   - a Sec-Fetch-Site header, when the browser sends one (all current browsers do), of
//     "same-origin" (or "none": typed by the user), and
//   - the page's CSRF token, which only a page of the console has: a MAC, keyed by the
//     logged-in principal's key (Viewer.Key; the farm's, Config.Key, before a login), of the
//     console session's id (an HttpOnly cookie no script reads)
//     and the principal its login names, so that any gateway of the farm checks it without
//     keeping state, and a server that was sent the cookies still cannot compute it.

// sessionCookie holds the console session's random id: the CSRF token binds it, and it lives
// for the browser's session, as the login cookie.
const sessionCookie = "corral_console_session"

// The CSRF token travels in a header (scripts) or a form field (the login and logout forms).
const (
	csrfHeader = "X-Corral-CSRF"
	csrfField  = "csrf"
)

// session returns the console session's id, making one (and setting its cookie) if r has none.
// Pages call it before they render, so that their CSRF token matches the cookie.
func session(w http.ResponseWriter, r *http.Request) string {
	if ck, err := r.Cookie(sessionCookie); err == nil && len(ck.Value) >= 22 {
		return ck.Value
	}
	id := rand.Text()
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: id, Path: "/", HttpOnly: true, Secure: overTLS(r), SameSite: http.SameSiteStrictMode})
	r.AddCookie(&http.Cookie{Name: sessionCookie, Value: id}) // the page rendered next sees it
	return id
}

// csrfToken is the token of a page of session sid logged in as principal ("" before a login,
// or without authentication).
func (k consoleKeys) csrfToken(sid, principal string) string {
	m := hmac.New(sha256.New, k.csrf)
	m.Write([]byte(sid))
	m.Write([]byte{0})
	m.Write([]byte(principal))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// pageCSRF is the CSRF token a page rendered for r embeds.
func (c *Console) pageCSRF(w http.ResponseWriter, r *http.Request) string {
	return c.csrfFor(r, session(w, r))
}

// Why a POST was refused, for the actions' metrics.
const (
	refusedCrossSite = "cross_site"
	refusedCSRF      = "csrf"
)

// checkPost refuses a POST that is not from one of the console's pages: 403 and a line saying
// what to do. It returns the reason, "" when the POST may go on.
func (c *Console) checkPost(r *http.Request) (reason, msg string) {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
	default:
		return refusedCrossSite, "forbidden: the console takes actions only from its own pages (this request came from another site or origin)"
	}
	ck, err := r.Cookie(sessionCookie)
	given := r.Header.Get(csrfHeader)
	if given == "" {
		given = r.PostFormValue(csrfField)
	}
	if err != nil || given == "" || !c.csrfTaken(r, ck.Value, given) {
		if r.Header.Get("Authorization") != "" { // a script: the console's pages send no bearer header
			return refusedCSRF, bearerRefused
		}
		return refusedCSRF, "forbidden: the page's CSRF token is missing or out of date (the page was opened before a login, or another site sent this request); reload the page and try again"
	}
	return "", ""
}

// bearerRefused answers an action that came with a bearer token, as a script's would.
const bearerRefused = "forbidden: console actions take the console's login, not a bearer token: its cookie and the page's CSRF token " +
	"(in " + csrfHeader + "), which only a console page has; scripts call the same tools on /mcp with 'Authorization: Bearer <token>' (docs/console.md)"
