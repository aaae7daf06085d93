package xs2a

// InitiationSCA is what a payment initiation answer asks for next
// (docs/interface.md PS1, SCA1): the bank may start SCA itself, require it
// through startAuthorisation, or exempt the payment.
type InitiationSCA string

// What Initiation.SCA reports.
const (
	InitiationSCAStart    InitiationSCA = "start"    // StartAuthorisation, then send the PSU to its scaRedirect
	InitiationSCARedirect InitiationSCA = "redirect" // SCA is due at once: send the PSU to Links.SCARedirect
	InitiationSCAExempt   InitiationSCA = "exempt"   // no SCA is due (an exemption): poll Links.Status
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
