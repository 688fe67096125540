//go:build !vision

package test

import "testing"

// haveVisionWorker says whether this build can start a real vision worker: this one has no
// cgo engine (make test runs the vision parts again with -tags vision).
const haveVisionWorker = false

func startVisionWorker(t *testing.T, _ string) {
	t.Fatal("this build has no vision engine: run with -tags vision")
}
