package tools_test

import (
	"testing"

	"github.com/corral-farm/corral/nodes/sim"
	"github.com/corral-farm/corral/nodes/tools"
)

// peek with max_width says the size of the image it sends, as screenshot does, and lists the
// same bboxes: they are relative 0-1, so they hold for the scaled image and the screen alike.
// QA: on an arm, max_width 300 gave a 300×667 image but width 1080, height 2400.
func TestPeekSaysTheSizeOfItsImage(t *testing.T) {
	p := sim.New("sim-peek-width")
	defer p.Close()
	full := run(t, p, "peek", `{}`)
	small := run(t, p, "peek", `{"max_width":300}`)
	f, s := full.Data.(tools.PeekResult), small.Data.(tools.PeekResult)
	if b := full.Image.Bounds(); f.Width != 1080 || f.Height != 2400 || b.Dx() != f.Width || b.Dy() != f.Height {
		t.Errorf("peek says %d×%d, its image is %v; want 1080×2400 both", f.Width, f.Height, b)
	}
	if b := small.Image.Bounds(); s.Width != 300 || s.Height != 667 || b.Dx() != s.Width || b.Dy() != s.Height {
		t.Errorf("peek with max_width 300 says %d×%d, its image is %v; want 300×667 both", s.Width, s.Height, b)
	}
	if f.Listing == "" || s.Listing != f.Listing {
		t.Errorf("the listing changed with max_width:\n%s\nwant:\n%s", s.Listing, f.Listing)
	}
}
