// Package wdasim is WebDriverAgent over a simulated phone: an http.Handler that answers the
// routes of appium/WebDriverAgent (the HTTP server on an iPhone's port 8100) from a nodes/sim
// Phone, so the iOS driver and its WebDriverAgent client run end to end with no iPhone.
//
// The phone's pixels divided by the scale are the screen's points (a 750x1334 phone at scale 2
// is an iPhone SE's 375x667 points). Input arrives in points and reaches the phone in pixels;
// screenshots are the phone's pixels as base64 PNG, broken into 64-character lines as
// WebDriverAgent sends them; the UI source is the phone's uiautomator dump turned into XCUITest
// XML in points (Button to XCUIElementTypeButton, TextView to StaticText, EditText to TextField,
// lists to Table or CollectionView with Cell rows, layouts to Other). The phone's packages are
// the bundle ids.
//
// As WebDriverAgent does, a Server keeps one session at a time (a new one replaces the old; a
// new Server has none, as after a restart) and answers an unknown session id with 404 "invalid
// session id", unknown routes with 404 "unknown command", and failures as
// {"value":{"error","message","traceback"}}. /wda/lock darkens the screen: screenshots are black,
// touches do nothing and /wda/locked is true until /wda/unlock or the home button wakes it. A
// phone on its own PIN lock screen (sim.Locked, or POWER) stays locked after waking, as an
// iPhone with a passcode does: /wda/unlock then fails and the passcode is typed with /wda/keys.
//
// Gestures take as long as they were asked to (a touch-and-hold its duration, a drag its press,
// W3C actions their pauses and moves), as XCTest answers only once the finger lifts; the phone
// sees the gesture at the end. As on an iPhone, a gesture cannot be taken back: one whose
// client went away still runs to its end, and, since WebDriverAgent runs its commands one at a
// time, every other request waits until it has.
//
// Tests count requests with Requests and make the server misbehave with SetFault.
package wdasim
