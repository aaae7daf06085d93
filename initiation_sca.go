package xs2a

// InitiationSCA is what a payment initiation answer asks for next
// (docs/interface.md PS1, SCA1): the bank may start SCA itself, require it
// through startAuthorisation, or exempt the payment.
type InitiationSCA string

// What Initiation.SCA reports.
const (
	// InitiationSCAStart: POST Links.StartAuthorisation
	// (PaymentsService.StartAuthorisation), then send the PSU to its
	// scaRedirect.
	InitiationSCAStart InitiationSCA = "start"
	// InitiationSCARedirect: SCA is due at once; send the PSU to
	// Links.SCARedirect, no StartAuthorisation.
	InitiationSCARedirect InitiationSCA = "redirect"
	// InitiationSCAExempt: no SCA is due (an exemption); poll Links.Status.
	InitiationSCAExempt InitiationSCA = "exempt"
)

// SCA reports what the initiation answer asks for next, by its links
// (docs/interface.md PS1).
func (i *Initiation) SCA() InitiationSCA {
	switch {
	case !i.Links.SCARedirect.IsZero():
		return InitiationSCARedirect
	case !i.Links.StartAuthorisation.IsZero():
		return InitiationSCAStart
	}
	return InitiationSCAExempt
}
