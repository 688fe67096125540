package sim

import (
	"context"
	"image/color"
	"slices"
	"strconv"
	"strings"
)

const (
	launcherPkg = "com.corral.launcher"
	systemPkg   = "com.android.systemui"
	model       = "Corral SimPhone"
)

// Indices into apps, for the apps with screens of their own.
const (
	appSettings = 0
	appNotes    = 1
	appShop     = 9
	appMusic    = 10
)

// app is one installed app: its launcher icon and, for the simple ones, its page.
type app struct {
	name   string
	pkg    string
	color  color.RGBA
	lines  []line // a simple page's text
	button string // a simple page's button, if any
	toast  string // what the button says it did
}

// line is one line of text on a simple page; size is in 1080-wide design pixels.
type line struct {
	text string
	size int
	bold bool
}

// apps is the launcher grid, in order. It is never modified.
var apps = [...]app{
	{name: "Settings", pkg: "com.corral.settings", color: rgb(0x5f6368)},
	{name: "Notes", pkg: "com.corral.notes", color: rgb(0xf9ab00)},
	{name: "Clock", pkg: "com.corral.clock", color: rgb(0x3949ab), lines: []line{
		{"12:00", 200, true}, {"Monday, January 1", 48, false}, {"Alarm 07:00 (off)", 48, false},
		{"World clock", 56, true}, {"London 12:00", 44, false}, {"Tokyo 21:00", 44, false}}},
	{name: "Browser", pkg: "com.corral.browser", color: rgb(0x1e88e5), lines: []line{
		{"corral.example", 44, false}, {"Welcome to Corral", 72, true},
		{"A device farm you can talk to.", 46, false}, {"Phones, tablets and browsers,", 46, false},
		{"one queue, one protocol.", 46, false}}},
	{name: "Camera", pkg: "com.corral.camera", color: rgb(0x455a64), lines: []line{
		{"Photo", 56, true}, {"Point at something nice", 46, false}},
		button: "Take photo", toast: "Photo saved"},
	{name: "Messages", pkg: "com.corral.messages", color: rgb(0x00897b), lines: []line{
		{"Alice", 52, true}, {"See you at five", 44, false}, {"Bob", 52, true},
		{"The build passed", 44, false}, {"Corral CI", 52, true}, {"Device farm is healthy", 44, false}}},
	{name: "Phone", pkg: "com.corral.phone", color: rgb(0x43a047), lines: []line{
		{"Recent calls", 56, true}, {"Alice  10:42", 46, false}, {"Bob  09:15", 46, false},
		{"Voicemail  Yesterday", 46, false}}},
	{name: "Calculator", pkg: "com.corral.calculator", color: rgb(0xe53935), lines: []line{
		{"12 + 30", 72, false}, {"= 42", 140, true}}},
	{name: "Weather", pkg: "com.corral.weather", color: rgb(0x039be5), lines: []line{
		{"Corral City", 56, true}, {"21°C", 180, true}, {"Sunny", 56, false},
		{"High 24°  Low 15°", 46, false}, {"Wind 12 km/h", 46, false}}},
	{name: "Shop", pkg: "com.corral.shop", color: rgb(0x8e24aa)},
	{name: "Music", pkg: "com.corral.music", color: rgb(0xd81b60), lines: []line{
		{"Now playing", 46, false}, {"Corral Theme", 72, true}, {"The Simulators", 50, false}}},
	{name: "Maps", pkg: "com.corral.maps", color: rgb(0x7cb342), lines: []line{
		{"Search here", 50, false}, {"You are here", 56, true}, {"Corral City, Main Street 1", 46, false},
		{"Coffee  200 m", 46, false}, {"Station  1.2 km", 46, false}}},
}

// appByPkg returns the index of pkg in apps, or -1.
func appByPkg(pkg string) int {
	for i := range apps {
		if apps[i].pkg == pkg {
			return i
		}
	}
	return -1
}

// mainView is the view an app opens on.
func mainView(i int) view {
	switch i {
	case appSettings:
		return view{scr: scrSettings}
	case appNotes:
		return view{scr: scrNotes}
	case appShop:
		return view{scr: scrShop}
	}
	return view{scr: scrApp, arg: int16(i)}
}

// pkg is the package a view belongs to.
func (v view) pkg() string {
	switch v.scr {
	case scrApp:
		return apps[v.arg].pkg
	case scrSettings, scrSetting:
		return apps[appSettings].pkg
	case scrShop, scrShopItem:
		return apps[appShop].pkg
	case scrNotes:
		return apps[appNotes].pkg
	case scrInstalled:
		return v.app
	}
	return launcherPkg
}

// packages returns every installed package, sorted: the apps and the launcher.
func packages() []string {
	out := make([]string, 0, len(apps)+1)
	for i := range apps {
		out = append(out, apps[i].pkg)
	}
	out = append(out, launcherPkg)
	slices.Sort(out)
	return out
}

// ListPackages returns the installed packages, sorted.
func (p *Phone) ListPackages(ctx context.Context) ([]string, error) {
	defer p.track()()
	if err := p.begin(ctx, "list packages"); err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.allPackages(), nil
}

// LaunchApp brings pkg to the foreground on its main page (the launcher's package goes home),
// an app InstallApp installed on a plain page of its own. An app already in front stays where
// it is. A locked phone opens the app behind the lock screen.
func (p *Phone) LaunchApp(ctx context.Context, pkg string) error {
	return p.appCall(ctx, "launch app", pkg, nil, func(op string) error {
		if !p.isInstalled(pkg) {
			return p.unknownPackage(op, pkg)
		}
		p.st.toast = ""
		p.show(pkg)
		return nil
	})
}

// TerminateApp stops pkg: its pages leave the back stack and, if it was in front, the phone
// goes home. Stopping an app that is not running is not an error.
func (p *Phone) TerminateApp(ctx context.Context, pkg string) error {
	return p.appCall(ctx, "terminate app", pkg, nil, func(op string) error {
		if !p.isInstalled(pkg) {
			return p.unknownPackage(op, pkg)
		}
		p.st.toast = ""
		p.stop(pkg)
		return nil
	})
}

// appCall is one call of the app API (LaunchApp, TerminateApp, ShowApp, StopApp) on pkg: it
// begins op; then, if pkg passes valid (nil: any), under p.mu it adds the input log's line
// ("launch com.example.app") and runs do.
func (p *Phone) appCall(ctx context.Context, op, pkg string, valid func(op string) error, do func(op string) error) error {
	defer p.track()()
	if err := p.begin(ctx, op); err != nil {
		return err
	}
	if valid != nil {
		if err := valid(op); err != nil {
			return err
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.log.add(strings.TrimSuffix(op, " app") + " " + pkg)
	return do(op)
}

// stop ends pkg's pages: they leave the back stack and, if pkg was in front, the phone goes
// home. Callers hold p.mu.
func (p *Phone) stop(pkg string) {
	if pkg == launcherPkg {
		return // the launcher restarts at once, as on a real phone
	}
	p.st.back = slices.DeleteFunc(p.st.back, func(v view) bool { return v.pkg() == pkg })
	if len(p.st.back) == 0 {
		p.st.back = nil
	}
	if p.st.cur.pkg() == pkg {
		p.st.goHome()
	}
	if pkg == apps[appMusic].pkg {
		p.st.flags &^= flagPlaying
	}
}

func (p *Phone) unknownPackage(op, pkg string) error {
	return p.wrap(op, ErrUnknownPackage, strconv.Quote(pkg)+" is not installed; ListPackages lists the installed ones: "+
		strings.Join(p.allPackages(), ", "))
}

func rgb(v uint32) color.RGBA {
	return color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 0xff}
}

func itoa(i int) string { return strconv.Itoa(i) }
