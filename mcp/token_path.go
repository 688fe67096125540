package mcp

import (
	"net/http"
	"net/url"
	"path"
	"strings"
)

// tokenOffUncleanPath answers a request whose path ServeMux would clean (//evil.com/, /a/../b)
// and whose query has a console ?token=: ServeMux redirected it to the cleaned path with the
// query, token included, before the console could take the token out of the address. The
// redirect here goes to the cleaned path without the token (the console asks to log in).
func tokenOffUncleanPath(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if clean := cleanPath(p); clean != p && r.URL.Query().Has("token") {
			q := r.URL.Query()
			q.Del("token")
			http.Redirect(w, r, (&url.URL{Path: clean, RawQuery: q.Encode()}).String(), http.StatusSeeOther)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// cleanPath is the path ServeMux serves p at: rooted, cleaned, its trailing slash kept.
func cleanPath(p string) string {
	if p == "" {
		return "/"
	}
	if p[0] != '/' {
		p = "/" + p
	}
	np := path.Clean(p)
	if strings.HasSuffix(p, "/") && np != "/" {
		np += "/"
	}
	return np
}
