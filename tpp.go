package xs2a

// TPPService registers the TPP's contact e-mail (service.md, Endpoints: TPP
// dialogue endpoints).
type TPPService service
