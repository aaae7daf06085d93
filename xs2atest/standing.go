package xs2atest

import "github.com/tppkit/xs2a/xs2atest/internal/bank"

// Standing orders: the "information" entries of an account's transaction
// report (bookingStatus information or all, Berlin Group): one per active
// periodic payment from the account.

type standingOrderJSON struct {
	StartDate         string   `json:"startDate"`
	EndDate           string   `json:"endDate,omitempty"`
	Frequency         string   `json:"frequency"`
	DayOfExecution    string   `json:"dayOfExecution,omitempty"`
	ExecutionRule     string   `json:"executionRule,omitempty"`
	MonthsOfExecution []string `json:"monthsOfExecution,omitempty"`
}

type infoJSON struct {
	TransactionAmount                 amountJSON       `json:"transactionAmount"`
	CreditorName                      string           `json:"creditorName,omitempty"`
	CreditorAccount                   *bank.AccountRef `json:"creditorAccount,omitempty"`
	RemittanceInformationUnstructured string           `json:"remittanceInformationUnstructured,omitempty"`
	AdditionalInformationStructured   struct {
		StandingOrderDetails standingOrderJSON `json:"standingOrderDetails"`
	} `json:"additionalInformationStructured"`
}

// activeStatus: a periodic payment in one of these runs as a standing order.
var activeStatus = map[string]bool{"PDNG": true, "ACTC": true, "ACCP": true, "ACSP": true, "ACSC": true, "ACCC": true, "ACWC": true}

// standingOrders lists the standing orders of a: its authorised
// periodic payments whose endDate, if any, has not passed.
func (s *Server) standingOrders(a *bank.Account) []infoJSON {
	today := bank.FormatDate(bank.DateOf(s.now()))
	out := []infoJSON{}
	for _, p := range s.bank.PeriodicFrom(a.ID) {
		if !activeStatus[p.Status] || len(p.Entries) == 0 {
			continue
		}
		str := func(k string) string { v, _ := p.Raw[k].(string); return v }
		if end := str("endDate"); end != "" && end < today {
			continue
		}
		f := p.Entries[0]
		e := infoJSON{
			TransactionAmount: amountJSON{formatAmount(-f.Amount), f.Currency},
			CreditorName:      f.CreditorName, CreditorAccount: &bank.AccountRef{BBAN: f.Creditor},
			RemittanceInformationUnstructured: f.Remittance,
		}
		d := &e.AdditionalInformationStructured.StandingOrderDetails
		d.StartDate, d.EndDate, d.Frequency = str("startDate"), str("endDate"), str("frequency")
		d.DayOfExecution, d.ExecutionRule = str("dayOfExecution"), str("executionRule")
		if months, ok := p.Raw["monthsOfExecution"].([]any); ok {
			for _, m := range months {
				if v, ok := m.(string); ok {
					d.MonthsOfExecution = append(d.MonthsOfExecution, v)
				}
			}
		}
		out = append(out, e)
	}
	return out
}
