package redact

import "testing"

// PageURL hides a page URL's password and nothing else: a '@' in the path or query is no user
// part, a URL without a password is shown as written, a package name as it is.
func TestPageURL(t *testing.T) {
	for raw, want := range map[string]string{
		"http://user:secretpw@127.0.0.1:8080/a?b=c":   "http://user:REDACTED@127.0.0.1:8080/a?b=c",
		"https://u:p%40ss@shop.example/login":         "https://u:REDACTED@shop.example/login",
		"https://shop.example/?email=a@b.example":     "https://shop.example/?email=a@b.example",
		"https://user@shop.example/":                  "https://user@shop.example/",
		"https://shop.example/a%2Fb":                  "https://shop.example/a%2Fb",
		"com.android.settings":                        "com.android.settings",
		"http://user:pw@exa mple.org:bad/":            "http://user:REDACTED@exa mple.org:bad/",
		"https://user:secretpw@shop.example/#frag@me": "https://user:REDACTED@shop.example/#frag@me",
	} {
		if got := PageURL(raw); got != want {
			t.Errorf("PageURL(%q) = %q, want %q", raw, got, want)
		}
	}
}
