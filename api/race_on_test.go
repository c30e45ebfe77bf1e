//go:build race

package api

// raceDetector: this test binary runs under the race detector.
const raceDetector = true
