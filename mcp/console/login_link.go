package console

import "net/http"

// A ?token= link logs the browser in as the token's principal. Followed from another site's
// page, it would log the console in as whoever made the link (login CSRF): the console would
// then show that principal's devices and act as it. So the browser must say it opened the link
// itself: Sec-Fetch-Site "none" (typed, pasted, a bookmark) or "same-origin". A client that
// sends no Sec-Fetch-Site (curl, scripts, browsers before 2023) is let in as before: those
// scripts are the link's main users, and the header is what tells a browser's cross-site
// navigation apart (docs/console.md, "Logging in").

// loginLinkRefused is the login page's message for a ?token= link another site sent.
const loginLinkRefused = "This login link was opened from another site, so it was not used: " +
	"a link on someone else's page could log your browser in as someone else. " +
	"To log in with it, paste the link into the address bar and open it directly, or type your token below."

// loginFromElsewhere reports whether the browser says another site (or another origin of
// this site) sent it to a ?token= link.
func loginFromElsewhere(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "none", "same-origin":
		return false
	}
	return true
}
