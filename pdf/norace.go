//go:build !race

package pdf

// raceBuild is set in a race-detector build, whose shadow memory multiplies what a process maps.
const raceBuild = false
