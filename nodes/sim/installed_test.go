package sim

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// An installed app launches as on a real phone: it comes to the front on a page of its own,
// named in the foreground, the UI tree and the screenshot; BACK, terminating, clearing and
// uninstalling it take it away. Before, its launch was refused (no launcher activity) and the
// launcher stayed in front.
func TestInstalledAppComesToTheFront(t *testing.T) {
	p := New("s")
	ctx := ctxT(t)
	const pkg = "com.example.shop"
	mustInstall(t, p, appFile(t, pkg+".apk"))
	home := shot(t, p)

	must(t, p.LaunchApp(ctx, pkg))
	if got, err := p.ForegroundApp(ctx); err != nil || got != pkg {
		t.Fatalf("after launching %s, %q is in front (%v)", pkg, got, err)
	}
	if got := foreground(t, p); got != pkg {
		t.Fatalf("the UI tree's package is %q, want %s", got, pkg)
	}
	if !has(t, p, "Shop") || !has(t, p, pkg) {
		t.Fatalf("the page of %s does not name it: %v", pkg, texts(t, p))
	}
	if samePixels(home, shot(t, p)) {
		t.Fatal("the screenshot still shows the home screen")
	}
	must(t, p.LaunchApp(ctx, pkg)) // in front already: stays
	must(t, p.PressKey(ctx, "BACK"))
	if got := foreground(t, p); got != launcherPkg {
		t.Fatalf("BACK from %s left %s in front", pkg, got)
	}

	for name, end := range map[string]func() error{
		"terminate": func() error { return p.TerminateApp(ctx, pkg) },
		"clear":     func() error { return p.ClearApp(ctx, pkg) },
		"stop":      func() error { return p.StopApp(ctx, pkg) },
	} {
		must(t, p.LaunchApp(ctx, "com.corral.notes"))
		must(t, p.LaunchApp(ctx, pkg))
		must(t, end())
		if got := foreground(t, p); got != launcherPkg {
			t.Fatalf("after %s of %s, %s is in front", name, pkg, got)
		}
	}
	must(t, p.LaunchApp(ctx, pkg))
	must(t, p.UninstallApp(ctx, pkg))
	if got, _ := p.ForegroundApp(ctx); got != launcherPkg {
		t.Fatalf("after uninstalling %s, %s is in front", pkg, got)
	}
	if err := p.LaunchApp(ctx, pkg); !errors.Is(err, ErrUnknownPackage) {
		t.Fatalf("launching an uninstalled app: %v", err)
	}
}

// ShowApp and StopApp serve the simulators that keep their own list of installed apps (adbsim,
// iossim): any app id comes to the front and leaves, the phone's own on their own pages.
func TestShowAppOfASimulator(t *testing.T) {
	p := New("s")
	ctx := ctxT(t)
	const bundle = "org.example.hello-world"
	must(t, p.ShowApp(ctx, bundle))
	if got, _ := p.ForegroundApp(ctx); got != bundle {
		t.Fatalf("ShowApp(%s) left %s in front", bundle, got)
	}
	if !has(t, p, "Hello-world") {
		t.Fatalf("the page does not name the app: %v", texts(t, p))
	}
	must(t, p.ShowApp(ctx, "com.corral.notes"))
	if !has(t, p, "com.corral.notes:id/note") {
		t.Fatalf("ShowApp of Notes did not open its page: %v", texts(t, p))
	}
	must(t, p.PressKey(ctx, "BACK"))
	must(t, p.StopApp(ctx, bundle))
	if got := foreground(t, p); got != launcherPkg {
		t.Fatalf("after StopApp(%s), %s is in front", bundle, got)
	}
	for _, bad := range []string{"", "a b", "x\n", strings.Repeat("a", maxAppID+1)} {
		if err := p.ShowApp(ctx, bad); !errors.Is(err, ErrBadInput) {
			t.Errorf("ShowApp(%q): %v", bad, err)
		}
	}
	if log := p.InputLog(); !slices.Contains(log, "launch "+bundle) || !slices.Contains(log, "terminate "+bundle) {
		t.Errorf("input log %v", log)
	}
}
