// Package sim is a simulated Android phone: a device.Driver with every optional ability, so the
// whole farm (scheduler, node actors, MCP tools, vision) can run end to end with no hardware.
//
// A Phone keeps only a few hundred bytes of state (which screen, the back stack, the note, the
// lock). Each screen state becomes one element tree, built on demand, which three things share:
// the renderer draws it, taps hit-test it and Source dumps it in uiautomator's XML format, so
// the bounds in the XML are exactly the pixels of the screenshot. Text is drawn with the Go fonts
// at readable sizes and the clock is fixed at 12:00, so screenshots are deterministic and an OCR
// or vision model can read them.
//
// The screens: a launcher with twelve apps, Settings with a detail page per row, a Shop with a
// scrolling list of 60 items, Notes with a text field, simple pages for the other apps, and a
// lock screen with a PIN keypad (POWER locks; the passcode, "1234" by default, unlocks; Passcode
// tells it to the node's unlock_phone). ShowPopup opens a modal dialog over any screen, for
// close_popups to find. HideTree (or WithoutTree) hides the UI tree behind a bare canvas, as a
// game or a Flutter app shows it, so that the tools must read the screen with vision.
//
// Beyond the screens, a Phone installs and uninstalls packages (the package an APK's manifest
// names, else the app file's base name; an iPhone's .ipa is refused; an installed package
// launches on a plain page of its own, as ShowApp shows the apps adbsim and iossim install),
// clears app data, names the app in front, selects an input method, keeps a clipboard, and
// reports a density of 420 dpi (WithDensity changes it) and a full battery.
//
// Tests steer a Phone's failures with SetDelay, HangNext (ignores ctx until Close), PanicNext
// and FailNext, and observe it with Operations, Overlaps (operations that began while another
// was in flight, which an actor that serialises device I/O must never cause) and InputLog.
package sim
