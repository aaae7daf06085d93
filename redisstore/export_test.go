package redisstore

import "time"

// SetServerShift makes the budget script of s read the server's time as
// TIME plus shift(), so a test passes a day without waiting one. Only tests
// can call it: in production the shift is nil and TIME alone counts.
func SetServerShift(s *BudgetStore, shift func() time.Duration) { s.shift = shift }
