package xs2a

import (
	"context"
	"net/http"
)

// UpdateAccount changes the account (with Card, the card account)
// a.ResourceID with PUT /v1/sandbox/accounts/{mockAccountId} or
// /v1/sandbox/card-accounts/{mockCardAccountId}, sending the set fields
// among Name, Product, CashAccountType, Balance and, for a card account,
// MaskedPAN and CreditLimit; owner, BBAN and currency never change and are
// not sent. Checked as for CreateAccount; Currency is needed with Balance or
// CreditLimit. a is not modified. The platform's sandbox may not serve this
// route (docs/interface.md SB12).
func (s *SandboxService) UpdateAccount(ctx context.Context, a *SandboxAccount) (*SandboxAccount, *Response, error) {
	return s.sendAccount(ctx, "sandbox.updateAccount", http.MethodPut, a, false)
}

// UpdateAgreement replaces all but the owner of the agreement a.ID with PUT
// /v1/sandbox/agreements/{mockAgreementId} and the body of CreateAgreement;
// a.CustomerNumber must be the agreement's owner (docs/interface.md SB12).
// Checked as for CreateAgreement. a is not modified.
func (s *SandboxService) UpdateAgreement(ctx context.Context, a *SandboxAgreement) (*SandboxAgreement, *Response, error) {
	return s.sendAgreement(ctx, "sandbox.updateAgreement", http.MethodPut, a, true)
}

// AddEngagements adds engagements to the agreement mockAgreementID with POST
// /v1/sandbox/agreements/{mockAgreementId}/engagements and a JSON array
// (docs/interface.md SB10), and returns the agreement as it now is. Each is
// checked before sending (see SandboxEngagement). engagements is not
// modified.
func (s *SandboxService) AddEngagements(ctx context.Context, mockAgreementID string, engagements []SandboxEngagement) (*SandboxAgreement, *Response, error) {
	if err := checkSandboxID("mockAgreementID", mockAgreementID); err != nil {
		return nil, nil, err
	}
	if len(engagements) == 0 {
		return nil, nil, invalid("SandboxEngagements", "must hold at least one engagement")
	}
	if err := validateEngagements("SandboxEngagements", engagements); err != nil {
		return nil, nil, err
	}
	return doAs[SandboxAgreement](ctx, s.client, &request{op: "sandbox.addEngagements", method: http.MethodPost,
		href: "/v1/sandbox/agreements/" + pathSegment(mockAgreementID) + "/engagements", body: engagements})
}

// UpdateTransaction replaces the mock transaction tx.TransactionID of the
// account mockAccountID with PUT
// /v1/sandbox/accounts/{mockAccountId}/transactions/{transactionId} and tx as
// one object (docs/interface.md SB12). Checked as for CreateTransactions. tx
// is not modified; its TransactionID goes in the path only.
func (s *SandboxService) UpdateTransaction(ctx context.Context, mockAccountID string, tx *SandboxTransaction) (*SandboxTransaction, *Response, error) {
	if err := checkSandboxID("mockAccountID", mockAccountID); err != nil {
		return nil, nil, err
	}
	if tx == nil {
		return nil, nil, invalid("SandboxTransaction", "is required")
	}
	if err := firstError(checkSandboxID("SandboxTransaction.TransactionID", tx.TransactionID),
		validateSandboxTransaction(tx, "SandboxTransaction", sandboxToday(s.client.cfg.now()))); err != nil {
		return nil, nil, err
	}
	body := *tx
	body.TransactionID = ""
	out, resp, err := doAs[SandboxTransaction](ctx, s.client, &request{op: "sandbox.updateTransaction",
		method: http.MethodPut, body: &body,
		href: "/v1/sandbox/accounts/" + pathSegment(mockAccountID) + "/transactions/" + pathSegment(tx.TransactionID)})
	if err != nil {
		return nil, resp, err
	}
	out.Pending = tx.Pending
	return out, resp, nil
}
