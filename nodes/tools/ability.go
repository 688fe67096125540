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
	// Instead is an ability that serves the tool as well where a driver lacks Iface: an arm
	// swipes the app in front away without knowing its name (Or).
	Instead *Ability
	// Alternative is what does the job on a device without the ability, in other tools: an
	// arm types by pasting (Else). The refusal names it, before other devices.
	Alternative string
}

// Need is the ability I (an interface of package device), for a tool that, without it, cannot do
// what doing says.
func Need[I any](doing string) Ability {
	return Ability{Iface: reflect.TypeFor[I](), Doing: doing}
}

// Or is a with b as what serves instead.
func (a Ability) Or(b Ability) Ability {
	a.Instead = &b
	return a
}

// Else is a with alternative, the other tools that do its job on a device without it.
func (a Ability) Else(alternative string) Ability {
	a.Alternative = alternative
	return a
}

// in says whether d has the ability.
func (a Ability) in(d device.Driver) bool { return a.servedBy(reflect.TypeOf(d)) }

// servedBy says whether drivers of type d have the ability or what serves instead.
func (a Ability) servedBy(d reflect.Type) bool {
	return d.Implements(a.Iface) || a.Instead != nil && a.Instead.servedBy(d)
}

// Name is the interface's name, e.g. "DoubleTapper".
func (a Ability) Name() string { return a.Iface.Name() }

// Names are the names of the interface and of those that serve instead.
func (a Ability) Names() []string {
	if a.Instead == nil {
		return []string{a.Name()}
	}
	return append([]string{a.Name()}, a.Instead.Names()...)
}
