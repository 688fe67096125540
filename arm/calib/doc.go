// Package calib calibrates an arm rig: where the phone's screen is in the camera's frame
// (FindScreenQuad, while the phone shows Page), how to turn the frame into a screenshot
// (Rectify), and where a screen pixel lies under the gantry (FitGantry, from probe taps whose
// landing points the phone reports). A Calibration holds the result, converts taps from
// screen pixels to gantry millimetres within soft limits, and travels as versioned JSON.
package calib
