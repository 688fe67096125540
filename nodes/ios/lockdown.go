package ios

import (
	"context"
	"fmt"
	"time"

	goios "github.com/danielpaulus/go-ios/ios"
)

// Facts are what lockdown tells of a device.
type Facts struct {
	Name, ProductType, Version, Build, Class string
	// Trusted: the device has paired with this computer (a pair record exists and lockdown
	// takes a session with it).
	Trusted bool
	// DeveloperMode is on (iOS 16 and later need it for WebDriverAgent); unknown when untrusted.
	DeveloperMode bool
}

// lockdown opens a lockdown session on the device, TLS with its pair record.
func (m Mux) lockdown(ctx context.Context, deviceID int, udid string) (*goios.LockDownConnection, goios.PairRecord, error) {
	if err := unlisted(deviceID); err != nil {
		return nil, goios.PairRecord{}, err
	}
	rec, err := m.PairRecord(ctx, udid)
	if err != nil {
		return nil, rec, err
	}
	mc, c, err := m.dial(ctx)
	if err != nil {
		return nil, rec, err
	}
	var ld *goios.LockDownConnection
	err = guard(ctx, c, func() (err error) {
		if ld, err = mc.ConnectLockdown(deviceID); err != nil {
			return err
		}
		_, err = ld.StartSession(rec)
		return err
	})
	if err != nil {
		_ = c.Close()
		if ctx.Err() == nil {
			err = fmt.Errorf("%w: lockdown refused a session (%v)", ErrUntrusted, err)
		}
		return nil, rec, err
	}
	return ld, rec, nil
}

// facts reads a device's facts: all of them from a session when it trusts this computer, the
// few lockdown tells anyone otherwise.
func (m Mux) facts(ctx context.Context, deviceID int, udid string) (Facts, error) {
	ld, _, err := m.lockdown(ctx, deviceID, udid)
	if err != nil {
		if ctx.Err() != nil {
			return Facts{}, err
		}
		return m.publicFacts(ctx, deviceID)
	}
	defer closeLockdown(ld)
	f := Facts{Trusted: true}
	err = guard(ctx, ld.Conn(), func() error {
		all, err := ld.GetValues()
		if err != nil {
			return err
		}
		v := all.Value
		f.Name, f.ProductType, f.Version, f.Build, f.Class = v.DeviceName, v.ProductType, v.ProductVersion, v.BuildVersion, v.DeviceClass
		if on, err := ld.GetValueForDomain("DeveloperModeStatus", "com.apple.security.mac.amfi"); err == nil {
			f.DeveloperMode, _ = on.(bool)
		}
		return nil
	})
	if err != nil {
		return f, fmt.Errorf("lockdown: read the device's values: %w", err)
	}
	return f, nil
}

// publicFacts reads the values lockdown gives without a session.
func (m Mux) publicFacts(ctx context.Context, deviceID int) (Facts, error) {
	mc, c, err := m.dial(ctx)
	if err != nil {
		return Facts{}, err
	}
	defer c.Close()
	var f Facts
	err = guard(ctx, c, func() error {
		ld, err := mc.ConnectLockdown(deviceID)
		if err != nil {
			return err
		}
		for key, dst := range map[string]*string{"DeviceName": &f.Name, "ProductType": &f.ProductType, "ProductVersion": &f.Version, "DeviceClass": &f.Class} {
			if v, err := ld.GetValue(key); err == nil {
				*dst, _ = v.(string)
			}
		}
		return nil
	})
	return f, err
}

// service starts a lockdown service on the device and connects to it, with TLS when the
// service asks for it.
func (m Mux) service(ctx context.Context, deviceID int, udid, name string) (goios.DeviceConnectionInterface, error) {
	ld, rec, err := m.lockdown(ctx, deviceID, udid)
	if err != nil {
		return nil, err
	}
	var resp goios.StartServiceResponse
	err = guard(ctx, ld.Conn(), func() (err error) {
		resp, err = ld.StartService(name)
		return err
	})
	closeLockdown(ld)
	if err != nil {
		return nil, fmt.Errorf("lockdown: start %s: %w", name, err)
	}
	c, err := m.Connect(ctx, deviceID, resp.Port)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	dc := goios.NewDeviceConnectionWithConn(c)
	if resp.EnableServiceSSL {
		if err := guard(ctx, c, func() error { return dc.EnableSessionSsl(rec) }); err != nil {
			_ = c.Close()
			return nil, fmt.Errorf("%s: TLS with the pair record: %w", name, err)
		}
	}
	return dc, nil
}

// closeLockdown ends a lockdown session and its connection; a device that does not answer
// the goodbye within a second is cut off.
func closeLockdown(ld *goios.LockDownConnection) {
	c := ld.Conn()
	t := time.AfterFunc(time.Second, func() { _ = c.Close() })
	ld.Close()
	t.Stop()
}
