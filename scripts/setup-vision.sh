#!/usr/bin/env bash
# Installs the vision worker's libraries (vision/worker, built with -tags vision: cgo, OpenCV
# through gocv v0.31.0, which matches Debian 12's OpenCV 4.6, and Tesseract 5.3 with its English
# and Simplified Chinese traineddata), and a Chinese font its tests draw screens with.
# Idempotent. make setup runs it (and fails if it cannot); make run runs it with --best-effort,
# and builds corral without vision when the packages cannot be installed.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/apt.sh
. scripts/apt.sh
VISION_PACKAGES=(libopencv-dev libtesseract-dev libleptonica-dev tesseract-ocr-eng tesseract-ocr-chi-sim fonts-wqy-microhei)
mapfile -t missing < <(missing_packages "${VISION_PACKAGES[@]}")
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages for the vision worker: ${missing[*]}"
  if ! apt_install "${missing[@]}"; then
    [ "${1:-}" = --best-effort ] || exit 1
    echo "setup: could not install them; corral runs without vision (install them as root: apt-get install ${missing[*]})" >&2
    exit 0
  fi
fi
echo "setup: vision: OpenCV $(pkg-config --modversion opencv4), Tesseract $(pkg-config --modversion tesseract)"
