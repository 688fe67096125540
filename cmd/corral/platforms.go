package main

import (
	"github.com/corral-farm/corral/arm/rig"
	"github.com/corral-farm/corral/nodes/android"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/ios"
	"github.com/corral-farm/corral/nodes/web"
)

// platforms are the platforms this binary drives: a node takes their flags and attaches their
// devices, and the gateway offers agents their names. A new platform is one line here.
func platforms() []device.Platform {
	return []device.Platform{android.Platform(), ios.Platform(), rig.Platform(), web.Platform()}
}
