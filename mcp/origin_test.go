package mcp

import "testing"

func TestOriginCheckRules(t *testing.T) {
	c, err := newOriginCheck([]string{"corral.example.com", "proxy.internal:8443", "https://agents.example.com", "http://plain.example.com", " "})
	if err != nil {
		t.Fatal(err)
	}
	for host, want := range map[string]bool{
		"localhost": true, "localhost:8420": true, "127.0.0.1:8420": true, "127.8.9.1": true, "[::1]:8420": true,
		"[::ffff:127.0.0.1]:1": true, "app.localhost:3000": true, "LOCALHOST:1": true,
		"corral.example.com": true, "corral.example.com:1234": true, "proxy.internal:8443": true, "agents.example.com": true,
		"proxy.internal": false, "proxy.internal:80": false, "evil.com": false, "127.0.0.1.evil.com": false,
		// An origin without a port is its scheme's default port: the Host has that port or none.
		"agents.example.com:443": true, "agents.example.com:444": false, "agents.example.com:80": false,
		"plain.example.com": true, "plain.example.com:80": true, "plain.example.com:8080": false, "plain.example.com:443": false,
		"localhost.evil.com": false, "": false, "10.0.0.1:8420": false,
	} {
		if got := c.hostAllowed(host); got != want {
			t.Errorf("Host %q allowed: %v, want %v", host, got, want)
		}
	}
	for origin, want := range map[string]bool{
		"http://localhost:6274": true, "http://127.0.0.1": true, "https://[::1]:8443": true,
		"https://agents.example.com": true, "https://agents.example.com:443": true, "http://agents.example.com": false,
		"https://agents.example.com:8443": false, "http://corral.example.com:9": true, "https://proxy.internal:8443": true,
		"http://plain.example.com": true, "http://plain.example.com:80": true, "http://plain.example.com:8080": false,
		"https://plain.example.com": false, "https://proxy.internal": false, "null": false, "http://evil.com": false, "file://": false, "": false,
	} {
		if got := c.originAllowed(origin); got != want {
			t.Errorf("Origin %q allowed: %v, want %v", origin, got, want)
		}
	}
	star, _ := newOriginCheck([]string{"*"})
	if !star.hostAllowed("evil.com") || !star.originAllowed("null") {
		t.Error("* should allow everything")
	}
	for _, bad := range []string{"https://a.example.com/path", "https://user@a.example.com", "://x", "a b"} {
		if err := ValidateOrigins([]string{bad}); err == nil {
			t.Errorf("ValidateOrigins(%q) accepted", bad)
		}
	}
}
