package console

import (
	"net/http"
	"net/url"
	"testing"
)

// Behind an Ingress that ends TLS the console is served over plain http, yet the browser is on
// https: the login cookie must be Secure there, as it is over TLS, and only there.
func TestLoginCookieIsSecureBehindATLSProxy(t *testing.T) {
	srv, _ := testConsole(t, testFarm(), nil)
	link := "/devices/d1?token=" + url.QueryEscape(simToken)
	for _, tc := range []struct {
		header, value string
		secure        bool
	}{
		{"X-Forwarded-Proto", "https", true},
		{"X-Forwarded-Proto", "HTTPS, http", true},
		{"Forwarded", `for=10.0.0.1;proto=https`, true},
		{"Forwarded", `proto="https";host=corral.example.com, proto=http`, true},
		{"X-Forwarded-Proto", "http", false},
		{"Forwarded", "for=10.0.0.1", false},
		{"X-Nothing", "", false},
	} {
		resp, _ := get(t, srv, link, "", tc.header, tc.value)
		var login *http.Cookie
		for _, c := range resp.Cookies() {
			if isToken(c) {
				login = c
			}
		}
		if login == nil {
			t.Fatalf("%s: %q: no login cookie (%d)", tc.header, tc.value, resp.StatusCode)
		}
		if login.Secure != tc.secure {
			t.Errorf("%s: %q: login cookie Secure %v, want %v", tc.header, tc.value, login.Secure, tc.secure)
		}
	}
}
