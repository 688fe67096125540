package ios

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"

	goios "github.com/danielpaulus/go-ios/ios"
)

// DefaultUsbmuxd is where usbmuxd listens on Linux and macOS.
const DefaultUsbmuxd = "/var/run/usbmuxd"

// Mux reaches one usbmuxd: the host's, or a simulator's. It speaks through go-ios's own
// protocol code, over connections it dials itself, so that several usbmuxds can be used in one
// process (go-ios's package-level helpers all read USBMUXD_SOCKET_ADDRESS).
type Mux struct {
	network, address string
}

// ParseMux reads a usbmuxd address as go-ios reads USBMUXD_SOCKET_ADDRESS: host:port is TCP,
// anything else a Unix socket's path; a unix:// or tcp:// prefix says so explicitly.
func ParseMux(addr string) Mux {
	switch {
	case strings.HasPrefix(addr, "unix://"):
		return Mux{"unix", strings.TrimPrefix(addr, "unix://")}
	case strings.HasPrefix(addr, "tcp://"):
		return Mux{"tcp", strings.TrimPrefix(addr, "tcp://")}
	case strings.Contains(addr, ":"):
		return Mux{"tcp", addr}
	}
	return Mux{"unix", addr}
}

// EnvMux is the usbmuxd go-ios would use: USBMUXD_SOCKET_ADDRESS, else /var/run/usbmuxd.
func EnvMux() Mux {
	if a := os.Getenv("USBMUXD_SOCKET_ADDRESS"); a != "" {
		return ParseMux(a)
	}
	return ParseMux(DefaultUsbmuxd)
}

// String is the address as USBMUXD_SOCKET_ADDRESS would spell it.
func (m Mux) String() string { return m.address }

// dial opens a connection to usbmuxd, wrapped in go-ios's protocol.
func (m Mux) dial(ctx context.Context) (*goios.UsbMuxConnection, net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, m.network, m.address)
	if err != nil {
		return nil, nil, &MuxDownError{Addr: m.String(), Err: err}
	}
	return goios.NewUsbMuxConnection(goios.NewDeviceConnectionWithConn(c)), c, nil
}

// MuxDownError is usbmuxd not taking a connection: no device behind it can be reached, so
// it, not the device, is what to look at.
type MuxDownError struct {
	Addr string
	Err  error
	// Stuck: it took the connection but gave no answer (stopped with SIGSTOP, wedged).
	Stuck bool
}

func (e *MuxDownError) Error() string {
	if e.Stuck {
		return fmt.Sprintf("usbmuxd at %s does not answer: it takes connections but %v (stopped or stuck? restart it)", e.Addr, e.Err)
	}
	return fmt.Sprintf("usbmuxd at %s does not answer: is it running? (%v; if it listens elsewhere, set --usbmuxd or USBMUXD_SOCKET_ADDRESS)", e.Addr, e.Err)
}

func (e *MuxDownError) Unwrap() error { return e.Err }

// guard runs f, which blocks on c without a context, closing c if ctx ends first.
func guard(ctx context.Context, c net.Conn, f func() error) error {
	stop := context.AfterFunc(ctx, func() { _ = c.Close() })
	err := f()
	if !stop() {
		return ctx.Err()
	}
	return err
}

// List lists the devices usbmuxd has now.
func (m Mux) List(ctx context.Context) ([]goios.DeviceEntry, error) {
	mc, c, err := m.dial(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	var list goios.DeviceList
	err = guard(ctx, c, func() (err error) {
		list, err = mc.ListDevices()
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("usbmuxd at %s: list devices: %w", m, err)
	}
	return list.DeviceList, nil
}

// ErrUntrusted says a device has no pair record: it has not trusted this computer.
var ErrUntrusted = errors.New("the iPhone does not trust this computer")

// PairRecord reads the pair record usbmuxd keeps for udid.
func (m Mux) PairRecord(ctx context.Context, udid string) (goios.PairRecord, error) {
	mc, c, err := m.dial(ctx)
	if err != nil {
		return goios.PairRecord{}, err
	}
	defer c.Close()
	var rec goios.PairRecord
	err = guard(ctx, c, func() (err error) {
		rec, err = mc.ReadPair(udid)
		return err
	})
	if err != nil {
		if ctx.Err() != nil {
			return rec, err
		}
		return rec, fmt.Errorf("%w (%v)", ErrUntrusted, err)
	}
	if rec.HostID == "" || len(rec.HostCertificate) == 0 {
		return rec, fmt.Errorf("%w (its pair record is empty)", ErrUntrusted)
	}
	return rec, nil
}

// Connect opens a connection to port on the device deviceID: once it returns, the connection
// is a byte pipe to the service listening there.
func (m Mux) Connect(ctx context.Context, deviceID int, port uint16) (net.Conn, error) {
	if err := unlisted(deviceID); err != nil {
		return nil, err
	}
	mc, c, err := m.dial(ctx)
	if err != nil {
		return nil, err
	}
	if err := guard(ctx, c, func() error { return mc.Connect(deviceID, port) }); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("connect to port %d of the device: %w", port, err)
	}
	return c, nil
}

// Network is how the address is reached: "tcp" or "unix".
func (m Mux) Network() string { return m.network }
