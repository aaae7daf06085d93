//go:build race

package xs2a

// raceEnabled: the race detector is on. It makes sync.Pool drop a share of
// what is put back, on purpose, so pooled decoders and buffers are made
// again and allocation bounds need room for that.
const raceEnabled = true
