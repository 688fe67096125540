// Package camera is where an arm rig's frames come from: the overhead camera that sees the
// phone. A Source gives the latest frame on demand; implementations read a V4L2 device
// (OpenV4L2, pure Go ioctls, no cgo), an MJPEG stream over HTTP as IP cameras and phone
// camera apps serve it (OpenMJPEG), or render a simulated phone (camsim). ServeMJPEG is the
// other end of the MJPEG stream, so the simulated camera is read through the real client.
//
// Frames are fresh: Frame returns a frame captured after it was called (or, with a maximum
// age, one recent enough), never a stale picture of the screen from before a tap.
package camera
