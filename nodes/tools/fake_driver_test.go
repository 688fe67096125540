package tools

import (
	"context"
	"errors"
	"image"
	"sync"
	"time"

	"github.com/corral-farm/corral/nodes/device"
)

// fakeDriver has only the abilities every driver has. Unset function fields answer with a
// plain success; the calls are recorded.
type fakeDriver struct {
	info device.Info
	size device.Size

	ScreenSizeFn func(ctx context.Context) (device.Size, error)
	TapFn        func(ctx context.Context, p device.Point, hold time.Duration) error

	mu    sync.Mutex
	calls []string
}

var _ device.Driver = (*fakeDriver)(nil)

func newFake() *fakeDriver {
	return &fakeDriver{info: device.Info{Serial: "fake-1", Platform: device.PlatformAndroid}, size: device.Size{Width: 1080, Height: 2400}}
}

func (f *fakeDriver) record(call string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, call)
}

func (f *fakeDriver) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func (f *fakeDriver) Info() device.Info { return f.info }

func (f *fakeDriver) ScreenSize(ctx context.Context) (device.Size, error) {
	f.record("ScreenSize")
	if f.ScreenSizeFn != nil {
		return f.ScreenSizeFn(ctx)
	}
	return f.size, nil
}

func (f *fakeDriver) Screenshot(context.Context) (image.Image, error) {
	f.record("Screenshot")
	return image.NewRGBA(image.Rect(0, 0, f.size.Width, f.size.Height)), nil
}

func (f *fakeDriver) Tap(ctx context.Context, p device.Point, hold time.Duration) error {
	f.record("Tap")
	if f.TapFn != nil {
		return f.TapFn(ctx, p, hold)
	}
	return nil
}

// fakeAbled is a fakeDriver with every optional ability.
type fakeAbled struct {
	*fakeDriver
	DoubleTapFn    func(ctx context.Context, p device.Point) error
	SwipeFn        func(ctx context.Context, from, to device.Point, d, hold time.Duration) error
	InputTextFn    func(ctx context.Context, text string) error
	PressKeyFn     func(ctx context.Context, key string) error
	ListPackagesFn func(ctx context.Context) ([]string, error)
	LaunchAppFn    func(ctx context.Context, pkg string) error
	TerminateAppFn func(ctx context.Context, pkg string) error
	SourceFn       func(ctx context.Context) (string, error)
	InstallAppFn   func(ctx context.Context, localPath string) (device.InstalledApp, error)
	UninstallAppFn func(ctx context.Context, pkg string) error
	ClearAppFn     func(ctx context.Context, pkg string) error
	ForegroundFn   func(ctx context.Context) (string, error)
	SetIMEFn       func(ctx context.Context, ime string) error
	SetClipboardFn func(ctx context.Context, text string) error
	DensityFn      func(ctx context.Context) (int, error)
	StatusFn       func(ctx context.Context) (map[string]string, error)
}

var _ device.Capable = (*fakeAbled)(nil)

func newAbled() *fakeAbled { return &fakeAbled{fakeDriver: newFake()} }

func (f *fakeAbled) DoubleTap(ctx context.Context, p device.Point) error {
	f.record("DoubleTap")
	if f.DoubleTapFn != nil {
		return f.DoubleTapFn(ctx, p)
	}
	return nil
}

func (f *fakeAbled) Swipe(ctx context.Context, from, to device.Point, d, hold time.Duration) error {
	f.record("Swipe")
	if f.SwipeFn != nil {
		return f.SwipeFn(ctx, from, to, d, hold)
	}
	return nil
}

func (f *fakeAbled) InputText(ctx context.Context, text string) error {
	f.record("InputText")
	if f.InputTextFn != nil {
		return f.InputTextFn(ctx, text)
	}
	return nil
}

func (f *fakeAbled) PressKey(ctx context.Context, key string) error {
	f.record("PressKey")
	if f.PressKeyFn != nil {
		return f.PressKeyFn(ctx, key)
	}
	return nil
}

func (f *fakeAbled) ListPackages(ctx context.Context) ([]string, error) {
	f.record("ListPackages")
	if f.ListPackagesFn != nil {
		return f.ListPackagesFn(ctx)
	}
	return nil, nil
}

func (f *fakeAbled) LaunchApp(ctx context.Context, pkg string) error {
	f.record("LaunchApp")
	if f.LaunchAppFn != nil {
		return f.LaunchAppFn(ctx, pkg)
	}
	return nil
}

func (f *fakeAbled) TerminateApp(ctx context.Context, pkg string) error {
	f.record("TerminateApp")
	if f.TerminateAppFn != nil {
		return f.TerminateAppFn(ctx, pkg)
	}
	return nil
}

func (f *fakeAbled) Source(ctx context.Context) (string, error) {
	f.record("Source")
	if f.SourceFn != nil {
		return f.SourceFn(ctx)
	}
	return "<hierarchy/>", nil
}

func (f *fakeAbled) InstallApp(ctx context.Context, localPath string) (device.InstalledApp, error) {
	f.record("InstallApp")
	if f.InstallAppFn != nil {
		return f.InstallAppFn(ctx, localPath)
	}
	return device.InstalledApp{}, nil
}

func (f *fakeAbled) UninstallApp(ctx context.Context, pkg string) error {
	f.record("UninstallApp")
	if f.UninstallAppFn != nil {
		return f.UninstallAppFn(ctx, pkg)
	}
	return nil
}

func (f *fakeAbled) ClearApp(ctx context.Context, pkg string) error {
	f.record("ClearApp")
	if f.ClearAppFn != nil {
		return f.ClearAppFn(ctx, pkg)
	}
	return nil
}

func (f *fakeAbled) ForegroundApp(ctx context.Context) (string, error) {
	f.record("ForegroundApp")
	if f.ForegroundFn != nil {
		return f.ForegroundFn(ctx)
	}
	return "com.example.app", nil
}

func (f *fakeAbled) SetIME(ctx context.Context, ime string) error {
	f.record("SetIME")
	if f.SetIMEFn != nil {
		return f.SetIMEFn(ctx, ime)
	}
	return nil
}

func (f *fakeAbled) SetClipboard(ctx context.Context, text string) error {
	f.record("SetClipboard")
	if f.SetClipboardFn != nil {
		return f.SetClipboardFn(ctx, text)
	}
	return nil
}

// Density answers 420 dpi unless DensityFn says otherwise.
func (f *fakeAbled) Density(ctx context.Context) (int, error) {
	f.record("Density")
	if f.DensityFn != nil {
		return f.DensityFn(ctx)
	}
	return 420, nil
}

func (f *fakeAbled) Status(ctx context.Context) (map[string]string, error) {
	f.record("Status")
	if f.StatusFn != nil {
		return f.StatusFn(ctx)
	}
	return map[string]string{"battery_level": "50"}, nil
}

// fakeSwiper can swipe but cannot tell its screen density.
type fakeSwiper struct {
	*fakeDriver
	swipes []swipeCall
}

func (f *fakeSwiper) Swipe(_ context.Context, from, to device.Point, d, hold time.Duration) error {
	f.record("Swipe")
	f.mu.Lock()
	defer f.mu.Unlock()
	f.swipes = append(f.swipes, swipeCall{from, to, d, hold})
	return nil
}

var errDriver = errors.New("usb cable unplugged")
