package android

import (
	"fmt"
	"strings"
)

// parsePackages reads `pm list packages`: one "package:NAME" per line.
func parsePackages(out string) []string {
	var pkgs []string
	for line := range strings.Lines(out) {
		if name, ok := strings.CutPrefix(strings.TrimSpace(line), "package:"); ok && name != "" {
			pkgs = append(pkgs, name)
		}
	}
	return pkgs
}

// parsePMResult reads what pm install, pm uninstall and pm clear answer: a line "Success", or
// "Failure [REASON]" (pm clear says "Failed"). Other lines ("Performing Streamed Install")
// are ignored.
func parsePMResult(out string) error {
	for line := range strings.Lines(out) {
		line = strings.TrimSpace(line)
		switch {
		case line == "Success":
			return nil
		case strings.HasPrefix(line, "Failure"), strings.HasPrefix(line, "Failed"), strings.HasPrefix(line, "Error"):
			reason := line
			if i, j := strings.IndexByte(line, '['), strings.LastIndexByte(line, ']'); i >= 0 && j > i {
				reason = line[i+1 : j]
			}
			return fmt.Errorf("%w: %s", ErrCommandFailed, reason)
		}
	}
	return fmt.Errorf("%w: pm answered %s, neither Success nor Failure", ErrCommandFailed, quoteOutput(out))
}

// parseMonkey reads what `monkey -p PKG -c android.intent.category.LAUNCHER 1` answers:
// "Events injected: 1" when it launched the app.
func parseMonkey(out string) error {
	switch {
	case strings.Contains(out, "Events injected: 1"):
		return nil
	case strings.Contains(out, "No activities found"):
		return fmt.Errorf("%w: no launcher activity (is the package installed? list_packages shows what is)", ErrCommandFailed)
	}
	return fmt.Errorf("%w: monkey answered %s", ErrCommandFailed, quoteOutput(out))
}

// parseFocus reads `dumpsys window | grep mCurrentFocus`, a line like
// "mCurrentFocus=Window{1a2b3c u0 PKG/ACTIVITY}", and returns PKG.
func parseFocus(out string) (string, error) {
	var seen string
	for line := range strings.Lines(out) {
		_, rest, ok := strings.Cut(line, "mCurrentFocus=")
		if !ok {
			continue
		}
		rest = strings.TrimSpace(rest)
		if seen == "" {
			seen = rest
		}
		body, ok := strings.CutPrefix(rest, "Window{")
		if !ok {
			continue
		}
		body, _, _ = strings.Cut(body, "}")
		for _, f := range strings.Fields(body) {
			if pkg, _, ok := strings.Cut(f, "/"); ok && validPackage(pkg) {
				return pkg, nil
			}
		}
	}
	if seen != "" {
		return "", fmt.Errorf("%w: no app window has focus (the focus is %s)", ErrCommandFailed, quoteOutput(seen))
	}
	return "", fmt.Errorf("%w: dumpsys window shows no mCurrentFocus (is the screen on?)", ErrCommandFailed)
}

// parseIME reads what `ime set IME` answers: "Input method IME selected for user #0", or
// "Unknown input method IME cannot be selected for user #0".
func parseIME(out string) error {
	if strings.Contains(out, "selected") && !containsAny(out, "cannot", "Unknown", "Error", "Exception") {
		return nil
	}
	if strings.Contains(out, "Unknown input method") { // the caller named an IME the phone lacks
		return fmt.Errorf("%w: ime answered %s", ErrBadArgument, quoteOutput(out))
	}
	return fmt.Errorf("%w: ime answered %s", ErrCommandFailed, quoteOutput(out))
}

// validPackage says whether pkg is a Java package name (segments of letters, digits and
// underscores that do not start with a digit, joined by dots): the only names the driver puts
// into a shell command unquoted.
func validPackage(pkg string) bool {
	if pkg == "" || len(pkg) > 255 {
		return false
	}
	for seg := range strings.SplitSeq(pkg, ".") {
		if seg == "" || seg[0] >= '0' && seg[0] <= '9' {
			return false
		}
		for i := 0; i < len(seg); i++ {
			c := seg[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
				return false
			}
		}
	}
	return true
}

// validIME says whether ime is an input method id, "PKG/CLASS" with CLASS a (possibly
// relative, ".AdbIME") class name.
func validIME(ime string) bool {
	pkg, class, ok := strings.Cut(ime, "/")
	if !ok || !validPackage(pkg) {
		return false
	}
	return validPackage(strings.TrimPrefix(class, "."))
}
