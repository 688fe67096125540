// Package lens renders a phone's screen as an overhead camera sees it: placed in perspective
// in a larger frame, then blurred, lit by a glare, grainy and JPEG-compressed. The simulated
// camera of the arm's digital twin renders through it, and the vision benchmark uses it for
// its camera conditions, one effect at a time (Conditions.Only) or all together (Mild,
// Harsh).
//
// The ground truth follows the conditions: Conditions.ScreenToFrame maps a screen pixel to
// where it lands in the frame.
package lens
