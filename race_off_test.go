//go:build !race

package xs2a

// raceEnabled: the race detector is on (see race_on_test.go).
const raceEnabled = false
