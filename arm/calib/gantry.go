package calib

import (
	"fmt"
	"math"
	"slices"

	"github.com/corral-farm/corral/internal/geom"
)

// GantryFit is the screen → gantry transform fitted to probe taps.
type GantryFit struct {
	// ScreenToGantry maps screen pixels to gantry millimetres.
	ScreenToGantry geom.Affine
	// Residuals are each probe's distance, in mm, from where the fit puts it (the dropped
	// probe's too).
	Residuals []float64
	// Dropped is the probe left out of the fit as an outlier, or -1.
	Dropped int
}

// Kept are the residuals of the probes the fit used.
func (f GantryFit) Kept() []float64 {
	out := make([]float64, 0, len(f.Residuals))
	for i, r := range f.Residuals {
		if i != f.Dropped {
			out = append(out, r)
		}
	}
	return out
}

// FitGantry fits the screen → gantry transform to probes: screenPx[i] is where the phone
// felt the tap the gantry made at gantryMM[i]. It needs three probes not on a line; with
// five or more, one probe that fits far worse than the others (a misread touch) is dropped.
// The residuals are those of the probes kept, in mm (FitProbes says which was dropped).
func FitGantry(screenPx, gantryMM []geom.Point) (geom.Affine, []float64, error) {
	f, err := FitProbes(screenPx, gantryMM)
	if err != nil {
		return geom.Affine{}, nil, err
	}
	return f.ScreenToGantry, f.Kept(), nil
}

// outlierMM is the least leave-one-out residual that makes a probe an outlier; a probe is
// also one only when it is 5 times worse than the others' spread.
const outlierMM = 0.5

// FitProbes is FitGantry with the whole story: every residual and the probe dropped.
func FitProbes(screenPx, gantryMM []geom.Point) (GantryFit, error) {
	all, err := geom.FitAffine(screenPx, gantryMM)
	if err != nil {
		return GantryFit{}, fmt.Errorf("calib: fitting the probes: %w: probe at least three points spread over the screen", err)
	}
	fit := GantryFit{ScreenToGantry: all, Residuals: geom.Residuals(all, screenPx, gantryMM), Dropped: -1}
	if len(screenPx) < 5 {
		return fit, nil
	}
	// Leave each probe out in turn; the one the others predict worst is the suspect.
	worst, worstErr := -1, 0.0
	var worstFit geom.Affine
	for i := range screenPx {
		px := slices.Delete(slices.Clone(screenPx), i, i+1)
		mm := slices.Delete(slices.Clone(gantryMM), i, i+1)
		a, err := geom.FitAffine(px, mm)
		if err != nil {
			continue
		}
		if e := a.Apply(screenPx[i]).Dist(gantryMM[i]); e > worstErr {
			worst, worstErr, worstFit = i, e, a
		}
	}
	if worst < 0 {
		return fit, nil
	}
	others := geom.Residuals(worstFit, slices.Delete(slices.Clone(screenPx), worst, worst+1), slices.Delete(slices.Clone(gantryMM), worst, worst+1))
	var rms float64
	for _, r := range others {
		rms += r * r
	}
	rms = math.Sqrt(rms / float64(len(others)))
	if worstErr > outlierMM && worstErr > 5*rms {
		fit.ScreenToGantry, fit.Dropped = worstFit, worst
		fit.Residuals = geom.Residuals(worstFit, screenPx, gantryMM)
	}
	return fit, nil
}
