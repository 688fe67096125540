package android

// AttachOption configures Attach. Every driver Option (WithTags, WithLogger) is one: Attach
// makes each device's driver with it.
type AttachOption interface {
	applyAttach(*attachConfig)
}

// attachConfig is what the AttachOptions given to Attach ask for.
type attachConfig struct {
	driver []Option // each driver's
	quiet  bool     // QuietUntilUp
	own    *PrivateServer
	names  map[string]string // the names devices show, by adb serial (WithSerialNames)
}

func (o Option) applyAttach(c *attachConfig) { c.driver = append(c.driver, o) }

// attachFunc is an AttachOption that is not a driver's.
type attachFunc func(*attachConfig)

func (f attachFunc) applyAttach(c *attachConfig) { f(c) }

// QuietUntilUp has Attach wait quietly for an adb server nobody named, as --adb auto's (the one
// of ANDROID_ADB_SERVER_PORT or 5037): on a developer's machine it starts with the first adb
// command, often after the node, so its absence is no news. While it has never answered, that
// is logged at DEBUG, not WARN; when it first answers, Attach logs that once at INFO and
// attaches its devices. From then on it is any adb server: WARN when it goes, INFO when it is
// back.
func QuietUntilUp() AttachOption {
	return attachFunc(func(c *attachConfig) { c.quiet = true })
}

// WithPrivateServer says the adb server Attach follows is p, corral's own for simulated
// devices: when it does not answer, its devices' reason says so (an *OwnServerDownError: it
// exited and p is starting it again), not how to start someone's adb server.
func WithPrivateServer(p *PrivateServer) AttachOption {
	return attachFunc(func(c *attachConfig) { c.own = p })
}
