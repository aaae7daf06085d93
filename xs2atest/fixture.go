package xs2atest

import (
	"net/http"

	"github.com/tppkit/xs2a/xs2atest/internal/fixture"
)

func init() { fixture.Load = fixtureData }

// fixtureData renders a customer's sandbox data for package mockbank: an
// unstarted bank, freshly initialized with the default seed.
func fixtureData(customer string) fixture.Data {
	fx := &Server{cfg: defaultConfig()}
	fx.resetLocked()
	dummy, _ := http.NewRequest(http.MethodGet, "/", nil)
	out := fixture.Data{Products: map[string]bool{}, Instant: ProductInstant, MaxPage: maxPage}
	for p := range products {
		out.Products[p] = true
	}
	c := fx.customers[customer]
	if c == nil {
		return out
	}
	for _, id := range c.accounts {
		a := fx.accounts[id]
		if a.card {
			continue
		}
		fa := fixture.Account{ID: a.id, PathID: pathSeg(a.id), Listed: fx.accountJSONLocked(dummy, a),
			Ref:      accountRefJSON{BBAN: a.bban, IBAN: a.iban, Currency: a.currency},
			Balances: balancesOf(a)}
		for _, t := range a.booked {
			fa.Booked = append(fa.Booked, txOf(t, true))
		}
		for _, t := range a.pending {
			fa.Pending = append(fa.Pending, txOf(t, false))
		}
		out.Accounts = append(out.Accounts, fa)
	}
	return out
}
