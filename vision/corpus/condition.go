package corpus

import (
	"fmt"
	"slices"
)

// Condition is one way screens are seen, for scoring an OCR condition by condition: which
// screens (a Spec for each seed) and what becomes of them before the OCR reads them (nothing for
// a screenshot; a camera's perspective, blur, noise, glare or JPEG for a frame).
type Condition struct {
	Name string
	// Camera says the screen is seen through a camera (Screen's image is a frame).
	Camera bool
	spec   func(seed uint64) Spec
	see    func(s *Screen, seed uint64) (*Screen, error) // nil: the screenshot itself
}

// Screen draws the condition's screen for seed and sees it as the condition says.
func (c Condition) Screen(seed uint64) (*Screen, error) {
	s, err := Draw(c.spec(seed))
	if err != nil {
		return nil, err
	}
	if c.see == nil {
		return s, nil
	}
	seen, err := c.see(s, seed)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Name, err)
	}
	seen.Name = s.Name + "/" + c.Name
	return seen, nil
}

// Spec is the screen the condition draws for seed (before a camera sees it).
func (c Condition) Spec(seed uint64) Spec { return c.spec(seed) }

// The fonts and sizes clean screens cycle through.
var (
	cleanFonts = []Font{Regular, Medium, Mono, Regular}
	cleanSizes = []float64{36, 44, 52}
)

// screenshot is the spec of a screenshot for seed: the layouts in turn, then fonts and sizes.
func screenshot(seed uint64, dark bool) Spec {
	return Spec{
		Layout: Layouts[seed%uint64(len(Layouts))],
		Font:   cleanFonts[(seed/uint64(len(Layouts)))%uint64(len(cleanFonts))],
		Size:   cleanSizes[seed%uint64(len(cleanSizes))],
		Dark:   dark,
		Seed:   seed,
	}
}

// Conditions are the conditions measured, screenshots first:
//
//   - clean-light, clean-dark: screenshots of every layout, in the regular, medium and mono
//     fonts at 36 to 52 px;
//   - chinese: Chinese settings and app screens, light and dark;
//   - small-text: 28 px text (the smallest the corpus draws: 10 px on a 1080 px wide
//     screenshot shrunk for a worker), light and dark;
//   - bold: bold text, light and dark;
//
// then the camera's (CameraConditions).
func Conditions() []Condition {
	out := []Condition{
		{Name: "clean-light", spec: func(seed uint64) Spec { return screenshot(seed, false) }},
		{Name: "clean-dark", spec: func(seed uint64) Spec { return screenshot(seed, true) }},
		{Name: "chinese", spec: func(seed uint64) Spec {
			return Spec{Layout: ChineseLayouts[seed%2], Chinese: true, Dark: seed%4 >= 2, Size: cleanSizes[seed%3], Seed: seed}
		}},
		{Name: "small-text", spec: func(seed uint64) Spec {
			sp := screenshot(seed, seed%2 == 1)
			sp.Size = 28
			return sp
		}},
		{Name: "bold", spec: func(seed uint64) Spec {
			sp := screenshot(seed, seed%2 == 1)
			sp.Font = Bold
			return sp
		}},
	}
	return append(out, CameraConditions()...)
}

// ConditionNamed returns the condition called name.
func ConditionNamed(name string) (Condition, bool) {
	cs := Conditions()
	i := slices.IndexFunc(cs, func(c Condition) bool { return c.Name == name })
	if i < 0 {
		return Condition{}, false
	}
	return cs[i], true
}
