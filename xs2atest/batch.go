package xs2atest

// catchUpBatches runs, lazily, every batch that was due since the last
// request (on the injected clock).
func (s *Server) catchUpBatches() {
	s.bank.CatchUp()
}

// RunBatch runs one simulated payment batch now (after any scheduled runs
// that were due): signed (PDNG, or ACWC with a moved date) and waiting
// (ACCP) single and bulk payments whose execution date has come are booked
// when the debtor has the funds (ACSC), otherwise they wait for a later run
// as ACCP with fundsAvailable false.
func (s *Server) RunBatch() {
	s.bank.RunBatch()
}
