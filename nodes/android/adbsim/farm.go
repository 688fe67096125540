package adbsim

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
)

// Farm is a set of simulated devices started together.
type Farm struct {
	devices []*Device
}

// Start starts count devices. listen is "HOST:PORT": devices take consecutive ports from PORT,
// or each a free port when PORT is 0. The farm stops when ctx ends or on Close.
func Start(ctx context.Context, count int, listen string, opts ...Option) (*Farm, error) {
	if count < 1 {
		return nil, fmt.Errorf("adbsim: count %d: start at least one device", count)
	}
	host, portStr, err := net.SplitHostPort(listen)
	if err != nil {
		return nil, fmt.Errorf("adbsim: listen address %q: %w (want HOST:PORT, e.g. 127.0.0.1:5555)", listen, err)
	}
	port, err := strconv.Atoi(portStr)
	if err != nil || port < 0 || port+count-1 > 65535 {
		return nil, fmt.Errorf("adbsim: listen port %q: want 0 (free ports) or a port with room for %d devices", portStr, count)
	}
	f := &Farm{}
	for i := range count {
		p := port
		if p != 0 {
			p += i
		}
		d, err := StartDevice(ctx, net.JoinHostPort(host, strconv.Itoa(p)), opts...)
		if err != nil {
			_ = f.Close()
			return nil, err
		}
		f.devices = append(f.devices, d)
	}
	return f, nil
}

// Devices returns the devices in port order.
func (f *Farm) Devices() []*Device { return slices.Clone(f.devices) }

// Close closes every device.
func (f *Farm) Close() error {
	var errs []error
	for _, d := range f.devices {
		errs = append(errs, d.Close())
	}
	return errors.Join(errs...)
}
