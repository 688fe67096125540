package tools

// Next-step hints, PhysiClaw style: every action's result says what to do next, so that an
// agent keeps the see → act → verify loop going. They travel in the result's hint field.
const (
	hintTap = "peek to verify, then pick the next target. An identical listing means the tap missed " +
		"(retry once) or the bbox was wrong (pick another element from a fresh peek)."
	hintDoubleTap = "peek to verify the zoom or selection. For buttons use tap."
	hintLongPress = "peek now: the menu or popup that opened has new targets (Paste, Copy, ...) with their own bboxes."
	hintSwipe     = "peek to check that the page scrolled, then plan the next step."
	hintHome      = "peek to plan your next tap on the home screen icons."
	// hintHomeWeb is hintHome for a browser device: HOME opens its home page, no icons.
	hintHomeWeb = "peek to see the home page and plan your next step; app_launch opens a URL in a new tab."
	hintBack    = "peek to verify. The same screen means the gesture was not recognised (retry once) or this " +
		"screen has no back action (modal, root tab, lock screen): try home_screen and re-enter, or tap the " +
		"screen's own back/close button."
	hintForceQuit = "the app is closed and you are on the home screen: reopen it from there (tap its icon or app_launch)."
	// hintForceQuitTap is hintForceQuit for a device that cannot launch apps by name (an arm).
	hintForceQuitTap = "the app is closed and you are on the home screen: peek, then tap its icon to reopen it."
	// hintForceQuitWeb is hintForceQuit for a browser device: its HOME is a page, with no icons.
	hintForceQuitWeb = "the page is closed and the browser shows its home page: app_launch opens the URL again, in a new tab."
	hintClipboard    = "long_press the target field to open the paste popup, then tap Paste."
	hintSequence     = "peek to verify the final state and plan the next step."
	hintPeek         = "pick a target's bbox from the listing (or the image) and act on it: tap, long_press, swipe."
	hintAction       = "screenshot or peek to verify the result before the next step."
	hintInput        = "peek to check the text landed in the right field."
	hintLaunch       = "peek to see the app's first screen and pick the next target."
	hintInstall      = "list_packages shows the installed packages; app_launch the new one to open it."
	hintUninstall    = "list_packages confirms it is gone."
	hintClear        = "app_launch the package to start it fresh."
	hintIME          = "input now types through this input method."
	hintUnlock       = "peek to confirm you are on the home screen and plan your next tap."
	hintNothingOpen  = "app_launch opens an app (on a browser device, a URL in a new tab)."
	hintPopups       = "peek to confirm the screen is clear; a popup left over: tap its own close button."
)

// hintPeekUnlisted is hintPeek when peek lists no element (no UI tree and no vision worker, as
// on an arm): the image is all there is to pick a target from.
const hintPeekUnlisted = "no element is listed: read the target's place off the image (relative 0-1) " +
	"and act on it: tap (its bbox), tap_xy, long_press, swipe."

// peekHint is peek's hint for a listing of listed elements.
func peekHint(listed int) string {
	if listed == 0 {
		return hintPeekUnlisted
	}
	return hintPeek
}
