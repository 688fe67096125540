package device

import (
	"context"
	"flag"
	"log/slog"
	"reflect"
)

// Platform is a kind of device Corral drives: its name, the tools its drivers cannot serve, and
// how a node finds its devices. A platform's package offers one (android.Platform()); `corral
// up` and `corral node` hold the list of them, and the gateway offers agents only their names.
type Platform struct {
	// Name is the platform of its devices' Info (e.g. PlatformAndroid): the value agents pass
	// as a tool's platform argument.
	Name string
	// Driver is the type of its drivers (reflect.TypeFor[*android.Driver]()): a tool is offered
	// for the platform only if this type has every ability the tool needs. Nil: every ability.
	Driver reflect.Type
	// Gaps are tools its drivers cannot serve although they have the abilities the tools need
	// (a driver whose KeyPresser has no BACK key: "back").
	Gaps []string
	// Flags defines the platform's flags on fs, e.g. --adb, and returns what attaches its
	// devices once fs is parsed.
	Flags func(fs *flag.FlagSet) Attacher
}

// Attacher finds a platform's devices for a node, as its flags say.
type Attacher interface {
	// Real says whether the platform has devices for the node now, attached or started by its
	// flags: a node for which no platform has any starts simulated phones instead.
	Real(ctx context.Context) bool
	// Attach gives reg the platform's devices, and keeps it in step as they come and go until
	// stop is called (or ctx ends). An error means nothing was started.
	Attach(ctx context.Context, reg Registry, log *slog.Logger) (stop func(), err error)
}

// Registry is where a platform puts its devices: a node.
type Registry interface {
	// AddDriver brings a device under the node.
	AddDriver(d Driver)
	// RemoveDevice takes a device off the node, which shows it offline (its running task
	// fails, its lease is revoked) and closes its driver.
	RemoveDevice(serial, reason string)
}

// CalibrationStore keeps what a driver measured of its rig (an arm's camera and gantry) across
// node restarts, in the farm's KV: a node is one. A platform whose Registry is one loads a
// device's calibration before calibrating again.
type CalibrationStore interface {
	// LoadCalibration returns what was saved for serial, nil when nothing was.
	LoadCalibration(ctx context.Context, serial string) ([]byte, error)
	SaveCalibration(ctx context.Context, serial string, data []byte) error
}

// HaltStore keeps a rig's halt (emergency_stop, a controller's alarm) across node restarts and
// lost links, in the farm's KV: a node is one. A rig that comes back halted stays so until a
// person has looked at it and recovered it, rather than moving again on its own.
type HaltStore interface {
	// LoadHalt returns why serial was halted, "" when it was not.
	LoadHalt(ctx context.Context, serial string) (string, error)
	// SaveHalt keeps why serial is halted; "" forgets it (the rig was recovered).
	SaveHalt(ctx context.Context, serial, reason string) error
}
