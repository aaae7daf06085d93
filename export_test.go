package xs2a

import (
	"context"
	"time"
)

// SetSleep replaces the wait of c between attempts, so the tests of package
// xs2a_test retry without waiting in real time (as fakeSleep does here).
// Set it before c is used.
func SetSleep(c *Client, sleep func(ctx context.Context, d time.Duration) error) { c.sleep = sleep }
