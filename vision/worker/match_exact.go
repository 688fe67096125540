//go:build vision

package worker

import (
	"context"
	"image"

	"gocv.io/x/gocv"
)

// exactPlaces is how many places of the shrunk template the exact pass looks at, at most.
const exactPlaces = 12

// exactMatch looks for the template at scale 1, as a crop of the same device's screen shows.
// The scaled passes can miss one: shrinking blurs thin text on a plain background under
// their coarse threshold, and a screen of similar rows crowds the true one out of their few
// places. Here the shrunk template's best places in the shrunk image, at half the scaled
// passes' coarse threshold, are each scored again at full size, and every match is kept: the
// first that passes is not always the best, as icons alike but for their colours score 0.98
// or more in gray, and only the crop's own place scores 1. Nothing when scale 1 is not searched.
func exactMatch(ctx context.Context, img, tpl, small, smallTpl gocv.Mat, c, threshold, minScale, maxScale float64, margin int) ([]candidate, error) {
	if minScale > 1.0001 || maxScale < 0.9999 {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	found, err := matchAt(small, smallTpl, 1, (threshold-coarseSlack)/2, exactPlaces)
	if err != nil {
		return nil, err
	}
	var matches []candidate
	for _, f := range found {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		cd := candidate{r: scaleRect(f.r, 1/c).Intersect(image.Rect(0, 0, img.Cols(), img.Rows())), scale: 1}
		best, err := refine(img, tpl, cd, []float64{1}, minScale, maxScale, margin)
		if err != nil {
			return nil, err
		}
		if isMatch(img, best, threshold) {
			matches = append(matches, best)
		}
	}
	return matches, nil
}
