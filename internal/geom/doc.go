// Package geom is the plane geometry of the arm rig: points, homographies (a screen seen in
// perspective by a camera) and affine maps (screen pixels to gantry millimetres), fitted to
// point correspondences by least squares, and a bilinear perspective warp of images.
//
// Coordinates are continuous: pixel (i, j) of an image covers [i, i+1) × [j, j+1) and its
// centre is (i+0.5, j+0.5). The top-left corner of a w×h screen is (0, 0), its bottom-right
// corner (w, h).
package geom
