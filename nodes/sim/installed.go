package sim

import (
	"context"
	"hash/fnv"
	"image"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxAppID bounds the package names and bundle ids ShowApp takes, as Android bounds a
// package name.
const maxAppID = 255

// An app installed on the phone (InstallApp here; pm install or installation_proxy in the
// simulators over a Phone) has a plain page of its own: launched, it comes to the front as on
// a real phone, get_foreground_app names it, and BACK, HOME or terminating it leave it.

// ShowApp brings pkg to the front as launching it does, for a simulator that keeps the list of
// installed apps itself (adbsim's pm install, iossim's installation_proxy) and has the phone
// show what it installed: the phone's own apps open on their pages, any other on a plain page
// of its own. The caller has checked that pkg is installed.
func (p *Phone) ShowApp(ctx context.Context, pkg string) error {
	valid := func(op string) error {
		if !validAppID(pkg) {
			return p.wrap(op, ErrBadInput, "an app id is 1 to 255 printable characters, like com.example.app")
		}
		return nil
	}
	return p.appCall(ctx, "launch app", pkg, valid, func(string) error {
		p.st.toast = ""
		p.show(pkg)
		return nil
	})
}

// StopApp ends pkg's pages as TerminateApp does, whether or not the phone itself lists pkg: for
// the simulators ShowApp serves, when they stop, clear or uninstall what they installed.
func (p *Phone) StopApp(ctx context.Context, pkg string) error {
	return p.appCall(ctx, "terminate app", pkg, nil, func(string) error {
		if p.st.cur.pkg() == pkg {
			p.st.toast = ""
		}
		p.stop(pkg)
		return nil
	})
}

// show brings pkg to the front; one already there stays where it is. Callers hold p.mu.
func (p *Phone) show(pkg string) {
	switch i := appByPkg(pkg); {
	case pkg == launcherPkg:
		p.st.goHome()
	case p.st.cur.pkg() == pkg:
	case i >= 0:
		p.st.open(mainView(i))
	default:
		p.st.open(view{scr: scrInstalled, app: pkg})
	}
}

func validAppID(s string) bool {
	if s == "" || len(s) > maxAppID || !utf8.ValidString(s) {
		return false
	}
	return !strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsPrint(r) || r == ' ' })
}

// installedApp is how an installed app's page looks: named after its package's last part
// (com.example.shop: Shop), in a colour of its own.
func installedApp(pkg string) app {
	name := pkg[strings.LastIndexByte(pkg, '.')+1:]
	if name == "" {
		name = pkg
	}
	if r, n := utf8.DecodeRuneInString(name); r != utf8.RuneError {
		name = string(unicode.ToUpper(r)) + name[n:]
	}
	palette := [...]uint32{0x00897b, 0x3949ab, 0x6d4c41, 0xc2185b, 0x2e7d32, 0xef6c00, 0x5e35b1, 0x0277bd}
	h := fnv.New32a()
	_, _ = h.Write([]byte(pkg))
	return app{name: name, pkg: pkg, color: rgb(palette[h.Sum32()%uint32(len(palette))])}
}

// installed is an installed app's page: its name and package.
func (b *builder) installed(content *element, a *app) {
	l := b.l
	y := content.box.Min.Y + l.px(200)
	content.add(b.text(a.pkg+":id/name", a.name, image.Rect(l.px(60), y, l.w-l.px(60), y+l.px(120)), l.px(80), ink, true, alignCenter))
	y += l.px(140)
	content.add(b.text(a.pkg+":id/package", a.pkg, image.Rect(l.px(60), y, l.w-l.px(60), y+l.px(70)), l.px(40), grey, false, alignCenter))
}
