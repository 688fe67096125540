// Package twin is the digital twin of an arm rig: the GRBL simulator (arm/grbl/grblsim) as the
// gantry, a simulated phone (nodes/sim) lying under it, and a simulated camera
// (arm/camera/camsim) that sees the phone's screen in perspective with blur, noise and glare.
// Where the finger touches the glass the phone gets a tap, a swipe or an edge gesture, through
// the rig's true geometry, which a seed draws: the phone's place and tilt under the gantry, its
// pixel pitch, the camera's view. The rig's driver knows none of it: it talks GRBL to the
// simulator's TCP port or pty and reads the camera's frames, and must calibrate to find it.
//
// The twin is what the tests, `corral sim arm` and `corral up --sim-arm N` use.
package twin
