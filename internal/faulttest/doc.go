// Package faulttest holds the crash tests: the real sobre binary run as separate API and worker
// processes, killed with SIGKILL at the worst moments, to prove that no signature is lost and no
// mail is sent twice. It has no code outside its tests.
package faulttest
