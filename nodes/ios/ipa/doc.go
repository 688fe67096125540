// Package ipa reads what an iOS app archive says of itself: the bundle id and version in
// Payload/NAME.app/Info.plist, XML or binary. It reads that file and, of a binary plist, only
// the top dictionary's strings, without decoding the rest, so that a hostile file costs little.
// The driver names what app_install installed with it. Check reads the whole archive as installd
// unpacks it, so that app_install refuses, before the copy to the phone, what installd would.
package ipa
