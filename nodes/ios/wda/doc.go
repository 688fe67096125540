// Package wda is a client for WebDriverAgent (appium/WebDriverAgent), the HTTP server on an
// iPhone (port 8100) through which UI automation is done: status, window size and scale,
// screenshots, the XCUITest UI source, taps and swipes in points, typing, hardware buttons, the
// lock, and apps.
//
// A Client does not dial anything itself: the *http.Client it is given decides where its base URL
// ("http://wda") goes, through usbmuxd to the phone in production, to a loopback httptest server
// over nodes/ios/wdasim in tests. Calls that need a WebDriver session create one on first use;
// when WebDriverAgent answers "invalid session id" (it restarted, or another client replaced the
// session) the call creates a new session and is retried once.
//
// Every answer is treated as hostile: bodies are bounded (MaxResponse), values are type-checked,
// screenshots must be PNG and sources well-formed XML. An answer that is not WebDriverAgent's
// wraps ErrBadAnswer; an error WebDriverAgent reports is an *Error, matched with errors.Is against
// ErrInvalidSession, ErrUnknownCommand and the other sentinels. Every error names the route.
package wda
