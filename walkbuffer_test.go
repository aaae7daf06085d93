package xs2a

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// walkEntry is what walkPages writes for entry i of page p: texts short
// and long (over the reader's 512-byte text blocks), escaped and not ASCII,
// and a member no model names, all different on every page.
func walkEntry(p, i int, idField, textField string) (id, short, long string, entry string) {
	id = fmt.Sprintf("p%d-e%d", p, i)
	short = fmt.Sprintf("Butikk «%d/%d»", p, i)
	long = strings.Repeat(fmt.Sprintf("side %d post %d æøå \"sitat\" ", p, i), 1+(i%3)*12)
	b, _ := json.Marshal(long)
	entry = fmt.Sprintf(`{%q:%q,"creditorName":%q,%q:%s,"transactionAmount":{"amount":"-%d.%02d","currency":"NOK"},"zzPage":{"p":%d,"i":%d}}`,
		idField, id, short, textField, b, p, i, p, i)
	return id, short, long, entry
}

// walkPages serves pages of n booked entries each under key, linked by
// next links, each page a new body of its own.
func walkPages(key, idField, textField string, pages, n int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p := 1
		fmt.Sscan(r.URL.Query().Get("page"), &p)
		var entries []string
		for i := range n {
			_, _, _, e := walkEntry(p, i, idField, textField)
			entries = append(entries, e)
		}
		links := `{}`
		if p < pages {
			links = fmt.Sprintf(`{"next":{"href":"%s?page=%d"}}`, r.URL.EscapedPath(), p+1)
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{%q:{"booked":[%s],"pending":[],"_links":%s}}`, key, strings.Join(entries, ","), links)
	}
}

// TestWalksReuseNoBytesOfEarlierPages: a walk reads every page into one
// buffer; nothing an earlier page yielded (texts, Extra members) may still
// point into it when the next page overwrites it.
func TestWalksReuseNoBytesOfEarlierPages(t *testing.T) {
	t.Parallel()
	const pages, n = 4, 40
	cardPath := "/v1/card-accounts/card-1/transactions"
	_, c := newAISBank(t, map[string]http.HandlerFunc{
		"GET " + aisAccountPath + "/transactions": walkPages("transactions", "transactionId", "remittanceInformationUnstructured", pages, n),
		"GET " + cardPath:                         walkPages("cardTransactions", "cardTransactionId", "transactionDetails", pages, n),
	})
	ctx := context.Background()
	txs, err := collect(t, c.Accounts.Transactions(ctx, aisPresent, aisAccountID, &TransactionsOptions{BookingStatus: BookingBooked}))
	require.NoError(t, err)
	cards, err := collect(t, c.CardAccounts.Transactions(ctx, aisPresent, "card-1", &TransactionsOptions{BookingStatus: BookingBooked}))
	require.NoError(t, err)
	require.Len(t, txs, pages*n)
	require.Len(t, cards, pages*n)
	for k := range pages * n {
		p, i := 1+k/n, k%n
		id, short, long, _ := walkEntry(p, i, "", "")
		extra := fmt.Sprintf(`{"p":%d,"i":%d}`, p, i)
		tx, card := txs[k], cards[k]
		assert.Equal(t, id, tx.TransactionID)
		assert.Equal(t, short, tx.CreditorName)
		assert.Equal(t, long, tx.RemittanceInformationUnstructured)
		assert.Equal(t, fmt.Sprintf("-%d.%02d", p, i), tx.TransactionAmount.Amount)
		assert.JSONEq(t, extra, string(tx.Extra["zzPage"]))
		assert.Equal(t, id, card.CardTransactionID)
		assert.Equal(t, long, card.TransactionDetails)
		assert.JSONEq(t, extra, string(card.Extra["zzPage"]))
	}
}
