package xs2atest

import (
	"net/http"

	"github.com/tppkit/xs2a/xs2atest/internal/bank"
	"github.com/tppkit/xs2a/xs2atest/internal/fixture"
)

func init() { fixture.Load = fixtureData }

// fixtureData renders a customer's sandbox data for package mockbank: an
// unstarted bank, freshly initialized with the default seed.
func fixtureData(customer string) fixture.Data {
	cfg := defaultConfig()
	fx := &Server{cfg: cfg, bank: bank.New(cfg.seed, cfg.now)}
	dummy, _ := http.NewRequest(http.MethodGet, "/", nil)
	out := fixture.Data{Products: map[string]bool{}, Instant: ProductInstant, MaxPage: maxPage}
	for p := range products {
		out.Products[p] = true
	}
	c, ok := fx.bank.Customer(customer)
	if !ok {
		return out
	}
	for _, id := range c.Accounts {
		a, _ := fx.bank.Account(id)
		if a.Card {
			continue
		}
		fa := fixture.Account{ID: a.ID, PathID: pathSeg(a.ID), Listed: fx.accountJSONOf(dummy, &a),
			Ref:      bank.AccountRef{BBAN: a.BBAN, IBAN: a.IBAN, Currency: a.Currency},
			Balances: balancesOf(&a)}
		for _, t := range a.Booked {
			fa.Booked = append(fa.Booked, txOf(t, true))
		}
		for _, t := range a.Pending {
			fa.Pending = append(fa.Pending, txOf(t, false))
		}
		out.Accounts = append(out.Accounts, fa)
	}
	return out
}
