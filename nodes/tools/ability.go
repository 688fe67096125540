package tools

import (
	"reflect"

	"github.com/corral-farm/corral/nodes/device"
)

// Ability is one of device's optional driver interfaces, with what a device that lacks it cannot
// do, in the words of the tool that needs it ("cannot {Doing}").
type Ability struct {
	Iface reflect.Type
	Doing string
}

// Need is the ability I (an interface of package device), for a tool that, without it, cannot do
// what doing says.
func Need[I any](doing string) Ability {
	return Ability{Iface: reflect.TypeFor[I](), Doing: doing}
}

// in says whether d has the ability.
func (a Ability) in(d device.Driver) bool { return reflect.TypeOf(d).Implements(a.Iface) }

// Name is the interface's name, e.g. "DoubleTapper".
func (a Ability) Name() string { return a.Iface.Name() }
