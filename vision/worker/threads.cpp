//go:build vision

// OpenCV's own threads (threads.go says why they are turned off).
#include <opencv2/core/utility.hpp>

extern "C" void corral_cv_sequential(void) { cv::setNumThreads(1); }
extern "C" int corral_cv_threads(void) { return cv::getNumThreads(); }
