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
//   - the page's CSRF token, which only a page of the console has: it is derived from the
//     console session's id and the viewer's token, both in HttpOnly cookies that no script
//     reads, so that any gateway of the farm checks it without keeping state.

// sessionCookie holds the console session's random id: it keys the CSRF token, and it lives
// for the browser's session, as the token's cookie.
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
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: id, Path: "/", HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
	r.AddCookie(&http.Cookie{Name: sessionCookie, Value: id}) // the page rendered next sees it
	return id
}

// csrfToken is the token of a page of session sid seen with the viewer's token ("" before a
// login, or without authentication).
func csrfToken(sid, token string) string {
	m := hmac.New(sha256.New, []byte(sid))
	m.Write([]byte("corral console csrf\x00"))
	m.Write([]byte(token))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// pageCSRF is the CSRF token a page rendered for r embeds.
func pageCSRF(w http.ResponseWriter, r *http.Request) string {
	return csrfToken(session(w, r), cookieToken(r))
}

// Why a POST was refused, for the actions' metrics.
const (
	refusedCrossSite = "cross_site"
	refusedCSRF      = "csrf"
)

// checkPost refuses a POST that is not from one of the console's pages: 403 and a line saying
// what to do. It returns the reason, "" when the POST may go on.
func checkPost(r *http.Request) (reason, msg string) {
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
	if err != nil || given == "" || !hmac.Equal([]byte(given), []byte(csrfToken(ck.Value, cookieToken(r)))) {
		return refusedCSRF, "forbidden: the page's CSRF token is missing or out of date (the page was opened before a login, or another site sent this request); reload the page and try again"
	}
	return "", ""
}
