package redact

import "testing"

// URLs hides the user part of each URL of a list, as URL does one; HasUserinfo finds the same
// user parts, url.Parse or not; UserOfPair names a user only beside a password, never a token.
func TestURLsAndTheirUserParts(t *testing.T) {
	for urls, want := range map[string]string{
		"nats://admin:pw@[bad,nats://tok@h:1,nats://h:2": "nats://admin:REDACTED@[bad,nats://REDACTED@h:1,nats://h:2",
		"nats-leaf://s3cr?et@hub:7422":                   "nats-leaf://REDACTED@hub:7422",
		"nats-leaf://hub:7422, tls://hub:7423":           "nats-leaf://hub:7422, tls://hub:7423",
	} {
		if got := URLs(urls); got != want {
			t.Errorf("URLs(%q) = %q, want %q", urls, got, want)
		}
		if got := HasUserinfo(urls); got != (want != urls) {
			t.Errorf("HasUserinfo(%q) = %v", urls, got)
		}
	}
	for info, want := range map[string]string{"leaf-paris:pw": "leaf-paris", "leaf%2Dparis:pw": "leaf-paris", "s3cret-token": "", "": ""} {
		if got := UserOfPair(info); got != want {
			t.Errorf("UserOfPair(%q) = %q, want %q", info, got, want)
		}
	}
}
