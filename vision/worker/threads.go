//go:build vision

package worker

/*
#cgo pkg-config: opencv4
#cgo CXXFLAGS: -std=c++11
void corral_cv_sequential(void);
int corral_cv_threads(void);
*/
import "C"

// sequentialOpenCV makes OpenCV run each function on the calling thread. Debian's OpenCV
// parallelises resizing, thresholds and morphology on a TBB pool as wide as the machine, whose
// threads spin a while after each region: on a worker whose Parallel calls each have a core
// already, they only contend with the other calls (as Tesseract's OpenMP teams did, tess.go).
// The setting is the process's: every engine in it wants the same.
func sequentialOpenCV() { C.corral_cv_sequential() }

// openCVThreads is how many threads OpenCV's parallel functions use (1: none but the caller's).
func openCVThreads() int { return int(C.corral_cv_threads()) }
