// Package rig drives a robotic-arm rig as a Corral device: a GRBL gantry carrying a stylus
// finger over a phone, and an overhead camera that sees the phone's screen. The phone has no
// cable: what the farm knows of it is what the camera sees, and what it does to it is what the
// finger does.
//
// A Driver is a device.Driver of platform "arm". Its coordinates are pixels of the rectified
// camera frame (its screenshot), which a calibration (package arm/calib) maps to gantry
// millimetres; every gesture is a short G-code program that the driver ends with a barrier
// (G4), so a call returns once the finger is up again. Gestures in millimetres:
//
//   - tap, long press and double tap (150 ms between the taps, as PhysiClaw's, one program that
//     the controller times: grbl.Program);
//   - swipes from one point to another over a duration, the feed rate following from the
//     distance (the PhysiClaw sizes are centimetres, so Density reports the calibration's);
//   - the iPhone's system gestures as keys: HOME is the swipe up from the bottom edge, BACK the
//     swipe right from the left edge.
//
// Safety: no point outside the calibrated screen is ever sent to the gantry (the soft limits
// are the calibration's), a gesture that fails or whose context ends is followed by Stop (feed
// hold, reset, finger up), a controller in alarm refuses gestures with the alarm's text until
// Recover, and a lost link makes the device unhealthy: the platform takes it off the node.
package rig
