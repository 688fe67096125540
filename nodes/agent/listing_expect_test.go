package agent

import "testing"

// QA Q9 M3: `corral tasks export` wrote expects that any screen of the app passes: the toolbar's
// "Navigate up" (the first new label in listing order on every sub-screen), and on iOS the
// app's bundle id, listed as an element that covers the screen. The expect is a label new on
// this screen and shown only by it, a title before smaller text; none when no label is.
func TestNewLabelIsDistinctive(t *testing.T) {
	home := `e1 [text] "12:00" [0.044,0.000,0.278,0.042] 1.00
e2 [button] "Settings" [0.000,0.292,0.250,0.429] 1.00`
	for _, tc := range []struct{ name, after, want string }{
		{"toolbar first", `e1 [text] "12:01" [0.044,0.000,0.278,0.042] 1.00
e2 [button] "Navigate up" [0.000,0.042,0.157,0.117] 1.00
e3 [text] "Settings" [0.157,0.042,0.963,0.117] 1.00
e4 [button] "Wi-Fi" [0.000,0.117,1.000,0.196] 1.00
e5 [text] "Wi-Fi" [0.185,0.128,0.963,0.160] 1.00
e6 [text] "Connected to CorralNet" [0.185,0.160,0.963,0.185] 1.00`, "Wi-Fi"},
		{"ios app element", `e1 [view] "com.corral.settings" [0.000,0.000,1.000,1.000] 1.00
e2 [text] "Edit" [0.800,0.050,0.950,0.090] 1.00
e3 [text] "General" [0.000,0.100,1.000,0.160] 1.00
e4 [text] "About" [0.050,0.200,0.900,0.230] 1.00`, "General"},
		{"a title before smaller text", `e1 [text] "3 items" [0.000,0.050,1.000,0.070] 1.00
e2 [text] "Shopping list" [0.000,0.080,1.000,0.140] 1.00`, "Shopping list"},
		{"the same label twice", `e1 [button] "Delete" [0.800,0.100,1.000,0.150] 1.00
e2 [button] "Delete" [0.800,0.200,1.000,0.250] 1.00
e3 [text] "Milk" [0.000,0.100,0.700,0.150] 1.00`, "Milk"},
		{"nothing distinctive", `e1 [button] "Navigate up" [0.000,0.042,0.157,0.117] 1.00
e2 [view] "com.corral.settings" [0.000,0.000,1.000,1.000] 1.00
e3 [text] "100%" [0.815,0.000,0.956,0.042] 1.00
e4 [button] "More options" [0.900,0.042,1.000,0.117] 1.00`, ""},
	} {
		if got := newLabel(home, tc.after); got != tc.want {
			t.Errorf("%s: newLabel = %q, want %q", tc.name, got, tc.want)
		}
	}
}
