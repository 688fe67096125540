// Package apk reads what an Android app package says of itself: the package name and version
// in its binary AndroidManifest.xml. It reads the manifest and nothing else, within bounds, so
// that a hostile file costs little. The driver names what app_install installed with it, and
// the simulators name what they install the way a phone does.
//
// Build makes a minimal APK (a zip holding only such a manifest) for simulators and tests.
package apk
