package xs2aotel

import "github.com/tppkit/xs2a"

// NewObserver is the observer WithTelemetry installs, for tests that hand
// it a CallEnd of their own.
func NewObserver(opts ...Option) xs2a.Observer {
	var c config
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return newObserver(c)
}
